import { createSpeakerDirectory } from '../../src/features/processing/analyze-builtin.ts';
import { ruleCandidates } from '../../src/features/processing/extract-action-items.ts';
import type { LabelledExcerpt } from './action-item-data.ts';
import type { ExcerptSet } from './excerpts.ts';
import { matches } from './quality.ts';
import {
  extractWith,
  fBeta,
  loadTrainingData,
  scoreExcerpts,
  sweepThresholds,
  type ThresholdRow,
  TRAIN_SETS,
  trainedWithout,
} from './train-action-items.ts';

/**
 * `npx tsx bench/ingest/threshold-study.ts`: where should the detector's keep / commitment thresholds be chosen?
 * Computes, for the six training sets, the probabilities each set got from a vector model trained on the other
 * five (as the training script does), then sweeps the thresholds on (a) all six sets, (b) the `train` set alone
 * (windows the rules were not written from), and reports each choice on the half of the `train` set it was not
 * chosen on (excerpts split by meeting parity), so that a choice can be judged on data it did not see. Reads no
 * held-out or test set.
 */

const KEEP = [0, 0.02, 0.04, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.4];
const COMMITTED = [0, 0.01, 0.02, 0.03, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2];

type Row = ThresholdRow;

const sweep = (excerpts: readonly LabelledExcerpt[], scores: readonly (readonly number[])[]): Row[] =>
  sweepThresholds(excerpts, scores, { keep: KEEP, committed: COMMITTED, add: [2] }).rows;
const p = (r: Row) => r.precision;
const rc = (r: Row) => r.recall;
const f = (r: Row, beta = 1) => fBeta(r.precision, r.recall, beta);
const fmt = (r: Row) =>
  `keep ${r.keep.toFixed(2)} committed ${r.keepCommitted.toFixed(2)}: ${r.correct}/${r.predicted} of ${r.gold}, P ${(p(r) * 100).toFixed(1)}% R ${(rc(r) * 100).toFixed(1)}%`;

/** The choice rules compared: best recall at precision ≥ bar (F1 breaks ties), or best F1 / F0.5. */
const CHOICES: Record<string, (rows: Row[]) => Row> = {
  'recall at P≥0.7': (rows) =>
    best(
      rows.filter((r) => p(r) >= 0.7),
      rows,
      (r) => rc(r) * 10 + f(r),
    ),
  'recall at P≥0.5': (rows) =>
    best(
      rows.filter((r) => p(r) >= 0.5),
      rows,
      (r) => rc(r) * 10 + f(r),
    ),
  F1: (rows) => best(rows, rows, (r) => f(r)),
  'F0.5': (rows) => best(rows, rows, (r) => f(r, 0.5)),
  'F1, commitments ≤ 0.06': (rows) => {
    const capped = rows.filter((r) => r.keepCommitted <= 0.06);
    return best(capped, capped, (r) => f(r));
  },
  'F0.5, commitments ≤ 0.06': (rows) => {
    const capped = rows.filter((r) => r.keepCommitted <= 0.06);
    return best(capped, capped, (r) => f(r, 0.5));
  },
};
function best(eligible: Row[], all: Row[], score: (r: Row) => number): Row {
  const from = eligible.length ? eligible : all;
  return from.reduce((a, b) => (score(b) > score(a) ? b : a));
}

if (process.argv[1]?.endsWith('threshold-study.ts')) {
  const { data, vectors } = await loadTrainingData();
  const scores = new Map<ExcerptSet, number[][]>();
  for (const set of TRAIN_SETS) {
    const weights = trainedWithout(set, data, vectors);
    // As the analyzer: only the rules' sentences get a vector (the vector weights add nothing of their own).
    const excerpts = data.get(set)!;
    const embedded = excerpts.map((e, x) => {
      const found = ruleCandidates(e.sentences, createSpeakerDirectory(e.speakers));
      return e.sentences.map((_, i) => (found[i]!.found.length ? vectors.get(set)![x]![i] : undefined));
    });
    scores.set(set, scoreExcerpts(excerpts, weights, embedded));
  }
  const subset = (pick: (e: LabelledExcerpt) => boolean, sets: readonly ExcerptSet[]) => {
    const ex: LabelledExcerpt[] = [];
    const sc: number[][] = [];
    for (const set of sets)
      data.get(set)!.forEach((e, i) => {
        if (pick(e)) {
          ex.push(e);
          sc.push(scores.get(set)![i]!);
        }
      });
    return { ex, sc };
  };
  // Halves of the train set: by the meeting's position in the set (alternating), so both halves mix corpora.
  const trainIds = data.get('train')!.map((e) => e.id);
  const half = (e: LabelledExcerpt) => trainIds.indexOf(e.id) % 2;
  const pools = {
    all6: subset(() => true, TRAIN_SETS),
    train: subset(() => true, ['train']),
    trainA: subset((e) => half(e) === 0, ['train']),
    trainB: subset((e) => half(e) === 1, ['train']),
    dev: subset(() => true, ['dev', 'dev2', 'dev3', 'dev4', 'dev5']),
  };
  const rows = Object.fromEntries(Object.entries(pools).map(([k, v]) => [k, sweep(v.ex, v.sc)]));
  const at = (pool: string, r: Row) =>
    rows[pool]!.find((x) => x.keep === r.keep && x.keepCommitted === r.keepCommitted)!;
  const lines: string[] = [];
  for (const pool of Object.keys(pools)) {
    const base = at(pool, { keep: 0, keepCommitted: 0 } as Row);
    lines.push(`${pool}: rules alone ${fmt(base)}`);
  }
  for (const [name, choose] of Object.entries(CHOICES)) {
    lines.push(`choice by ${name}:`);
    for (const [on, judged] of [
      ['all6', 'train'],
      ['train', 'train'],
      ['trainA', 'trainB'],
      ['trainB', 'trainA'],
      ['all6', 'trainA'],
      ['all6', 'trainB'],
    ] as const) {
      const chosen = choose(rows[on]!);
      lines.push(`  chosen on ${on} (${fmt(chosen)}) → on ${judged}: ${fmt(at(judged, chosen))}`);
    }
  }
  if (process.argv.includes('--rows'))
    for (const r of rows.train!) lines.push(`train ${fmt(r)} | all6 ${fmt(at('all6', r))}`);
  const dump = process.argv.indexOf('--dump');
  if (dump > 0) {
    const pool = pools[process.argv[dump + 1] as keyof typeof pools];
    lines.push(...dumpItems(pool.ex, pool.sc));
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Every rule item of a set with its sentence's held-out probability and whether it matches (for reading). */
export function dumpItems(
  excerpts: readonly LabelledExcerpt[],
  scores: readonly (readonly number[])[],
): string[] {
  const out: string[] = [];
  excerpts.forEach((e, x) => {
    const found = ruleCandidates(e.sentences, createSpeakerDirectory(e.speakers));
    const items = extractWith(e, undefined, { keep: 0, add: 2 });
    const used = new Set<number>();
    for (const item of items) {
      const hit = e.gold.findIndex((g, i) => !used.has(i) && matches(item, g));
      if (hit >= 0) used.add(hit);
      const at = found.findIndex((c) => c.found.some((m) => m.text === item.text));
      const rule = at >= 0 ? found[at]!.found.find((m) => m.text === item.text)!.rule : '?';
      out.push(
        `${hit >= 0 ? 'ok' : 'FP'} p=${at >= 0 ? scores[x]![at]!.toFixed(3) : '?'} ${rule} ${e.id}: ${item.text} [${item.assignee ?? '-'}] <= ${at >= 0 ? e.sentences[at]!.text.slice(0, 160) : ''}`,
      );
    }
  });
  return out;
}
