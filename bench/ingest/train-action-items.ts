import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDetector, type DetectorWeights } from '../../src/features/processing/action-items/detector.ts';
import { sentenceFeatures } from '../../src/features/processing/action-items/detector-features.ts';
import { createSpeakerDirectory } from '../../src/features/processing/analyze-builtin.ts';
import {
  type ExtractedActionItem,
  extractActionItems,
} from '../../src/features/processing/extract-action-items.ts';
import { type LabelledExcerpt, loadLabelledSet, rocAuc } from './action-item-data.ts';
import type { ExcerptSet } from './excerpts.ts';
import { type Example, trainLogistic } from './logistic.ts';
import { matches } from './quality.ts';

/**
 * `npm run train:action-items`: trains the action-item detector on the labelled development sets and the
 * training set, reports its ROC AUC per sentence with each set held out in turn (and on the held-out set, never
 * trained on), and writes the weights to src/features/processing/action-items/detector-weights.json.
 *
 * Flags: `--dry` (report only, write nothing), `--json` (figures as JSON).
 * The final test set is not read here: `npx tsx bench/ingest/quality.ts --final` measures it.
 */

export const TRAIN_SETS: ExcerptSet[] = ['dev', 'dev2', 'dev3', 'dev4', 'dev5', 'train'];
const WEIGHTS = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../src/features/processing/action-items/detector-weights.json',
);

/** What the detector is told about an excerpt: the speakers' names. */
export function contextOf(e: LabelledExcerpt) {
  return { names: createSpeakerDirectory(e.speakers).names ?? [] };
}

export function examplesOf(excerpts: readonly LabelledExcerpt[]): Example[] {
  return excerpts.flatMap((e) => {
    const features = sentenceFeatures(e.sentences, contextOf(e));
    return features.map((f, i) => ({ features: f, label: e.labels[i]! }));
  });
}

/** Probabilities of every sentence of `excerpts` under `weights`. */
export function scoreExcerpts(
  excerpts: readonly LabelledExcerpt[],
  weights: Omit<DetectorWeights, 'keepThreshold' | 'addThreshold'>,
): number[][] {
  const detector = createDetector({ ...weights, keepThreshold: 0, addThreshold: 1 });
  return excerpts.map((e) => detector.score(e.sentences, contextOf(e)));
}

/** Matched, predicted and gold item counts of one extraction, with the quality matcher (one-to-one, in order). */
export function countMatches(predicted: readonly ExtractedActionItem[], excerpt: LabelledExcerpt) {
  const used = new Set<number>();
  let correct = 0;
  for (const p of predicted) {
    const hit = excerpt.gold.findIndex((g, i) => !used.has(i) && matches(p, g));
    if (hit >= 0) {
      used.add(hit);
      correct++;
    }
  }
  return { correct, predicted: predicted.length, gold: excerpt.gold.length };
}

/** The items of an excerpt with given per-sentence probabilities and thresholds (the analyzer's path). */
export function extractWith(
  excerpt: LabelledExcerpt,
  scores: readonly number[] | undefined,
  thresholds: { keep: number; add: number },
): ExtractedActionItem[] {
  const speakers = createSpeakerDirectory(excerpt.speakers);
  return extractActionItems(excerpt.sentences, speakers, excerpt.createdAt, {
    detector: null,
    ...(scores ? { scores, thresholds } : {}),
  });
}

const KEEP = [0, 0.02, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2];
const ADD = [0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 1.01];
/** The threshold pair chosen: the best recall among pairs whose precision is at least this. */
export const MIN_PRECISION = 0.7;

/**
 * Precision and recall of rules + detector on held-out-in-turn probabilities, for every threshold pair, and the
 * pair chosen for precision: the highest recall at precision ≥ MIN_PRECISION (F1 breaks ties; none that
 * precise: the most precise pair).
 */
export function sweepThresholds(
  excerpts: readonly LabelledExcerpt[],
  scores: readonly (readonly number[])[],
) {
  const rows: {
    keep: number;
    add: number;
    precision: number;
    recall: number;
    f1: number;
    predicted: number;
  }[] = [];
  for (const keep of KEEP) {
    for (const add of ADD) {
      let correct = 0;
      let predicted = 0;
      let gold = 0;
      excerpts.forEach((e, i) => {
        const c = countMatches(extractWith(e, scores[i], { keep, add }), e);
        correct += c.correct;
        predicted += c.predicted;
        gold += c.gold;
      });
      const precision = predicted ? correct / predicted : 1;
      const recall = gold ? correct / gold : 1;
      const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
      rows.push({ keep, add, precision, recall, f1, predicted });
    }
  }
  const eligible = rows.filter((r) => r.precision >= MIN_PRECISION);
  // None precise enough: the most precise pair.
  const chosen = eligible.length
    ? eligible.reduce((best, r) =>
        r.recall > best.recall || (r.recall === best.recall && r.f1 > best.f1) ? r : best,
      )
    : rows.reduce((best, r) => (r.precision > best.precision ? r : best));
  return { rows, chosen };
}

if (process.argv[1]?.endsWith('train-action-items.ts')) {
  const started = Date.now();
  const data = new Map(TRAIN_SETS.map((set) => [set, loadLabelledSet(set)] as const));
  const heldout = loadLabelledSet('heldout');
  const lines: string[] = [];
  const figures: Record<string, unknown> = {};
  for (const [set, excerpts] of data) {
    const sentences = excerpts.reduce((n, e) => n + e.sentences.length, 0);
    const positives = excerpts.reduce((n, e) => n + e.labels.reduce((a, b) => a + b, 0), 0);
    const gold = excerpts.reduce((n, e) => n + e.gold.length, 0);
    const unaligned = excerpts.reduce((n, e) => n + e.unaligned, 0);
    lines.push(
      `${set}: ${excerpts.length} excerpts, ${sentences} sentences, ${gold} items, ${positives} task sentences (${unaligned} items not aligned)`,
    );
  }
  // Each set held out in turn: trained on the others, scored on it.
  const pooledScores: number[] = [];
  const pooledLabels: number[] = [];
  const auc: Record<string, number> = {};
  const heldOutScores = new Map<ExcerptSet, number[][]>();
  for (const set of TRAIN_SETS) {
    const rest = TRAIN_SETS.filter((s) => s !== set).flatMap((s) => data.get(s)!);
    const weights = trainLogistic(examplesOf(rest));
    heldOutScores.set(set, scoreExcerpts(data.get(set)!, weights));
    const scores = heldOutScores.get(set)!.flat();
    const labels = data.get(set)!.flatMap((e) => e.labels);
    auc[set] = rocAuc(scores, labels);
    pooledScores.push(...scores);
    pooledLabels.push(...labels);
    lines.push(`held out ${set}: ROC AUC ${auc[set]!.toFixed(3)}`);
  }
  auc.pooled = rocAuc(pooledScores, pooledLabels);
  lines.push(`all held-out-in-turn sentences pooled: ROC AUC ${auc.pooled.toFixed(3)}`);
  const all = TRAIN_SETS.flatMap((s) => data.get(s)!);
  const weights = trainLogistic(examplesOf(all));
  auc.heldout = rocAuc(
    scoreExcerpts(heldout, weights).flat(),
    heldout.flatMap((e) => e.labels),
  );
  lines.push(`held-out set (never trained on), final model: ROC AUC ${auc.heldout.toFixed(3)}`);
  figures.auc = auc;
  // Thresholds for precision, on probabilities each set got from a model that had not seen it.
  const { rows, chosen } = sweepThresholds(
    all,
    TRAIN_SETS.flatMap((s) => heldOutScores.get(s)!),
  );
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const rules = all.reduce(
    (sum, e) => {
      const c = countMatches(extractWith(e, undefined, { keep: 0, add: 2 }), e);
      return {
        correct: sum.correct + c.correct,
        predicted: sum.predicted + c.predicted,
        gold: sum.gold + c.gold,
      };
    },
    { correct: 0, predicted: 0, gold: 0 },
  );
  lines.push(
    `rules alone on these sets: precision ${pct(rules.correct / rules.predicted)}, recall ${pct(rules.correct / rules.gold)} (${rules.predicted} predicted)`,
    'rules + detector, held-out-in-turn probabilities (keep = a rule item needs p ≥ keep; add = a sentence no rule matched yields an item at p ≥ add):',
    ...rows
      .filter((r) => r.add === chosen.add || r.keep === chosen.keep)
      .map(
        (r) =>
          `  keep ${r.keep.toFixed(2)} add ${r.add.toFixed(2)}: precision ${pct(r.precision)} recall ${pct(r.recall)} F1 ${pct(r.f1)} (${r.predicted} predicted)`,
      ),
    `chosen (best recall at precision ≥ ${MIN_PRECISION}): keep ${chosen.keep}, add ${chosen.add}`,
  );
  figures.thresholds = { rules, rows, chosen };
  const out: DetectorWeights = {
    ...weights,
    keepThreshold: chosen.keep,
    addThreshold: chosen.add,
    trainedOn: `${TRAIN_SETS.join(', ')} (${all.length} excerpts)`,
  };
  lines.push(`${Object.keys(out.sparse).length} weighted buckets; took ${Date.now() - started} ms`);
  if (!process.argv.includes('--dry')) {
    fs.writeFileSync(WEIGHTS, `${JSON.stringify(out)}\n`);
    lines.push(`wrote ${path.relative(process.cwd(), WEIGHTS)}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
}
