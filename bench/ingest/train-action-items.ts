import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDetector, type DetectorWeights } from '../../src/features/processing/action-items/detector.ts';
import { sentenceFeatures } from '../../src/features/processing/action-items/detector-features.ts';
import { type LabelledExcerpt, loadLabelledSet, rocAuc } from './action-item-data.ts';
import type { ExcerptSet } from './excerpts.ts';
import { type Example, trainLogistic } from './logistic.ts';

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

export function examplesOf(excerpts: readonly LabelledExcerpt[]): Example[] {
  return excerpts.flatMap((e) => {
    const features = sentenceFeatures(e.sentences, { names: e.speakers.map((s) => s.name) });
    return features.map((f, i) => ({ features: f, label: e.labels[i]! }));
  });
}

/** Probabilities of every sentence of `excerpts` under `weights`. */
export function scoreExcerpts(
  excerpts: readonly LabelledExcerpt[],
  weights: Omit<DetectorWeights, 'keepThreshold' | 'addThreshold'>,
): number[][] {
  const detector = createDetector({ ...weights, keepThreshold: 0, addThreshold: 1 });
  return excerpts.map((e) => detector.score(e.sentences, { names: e.speakers.map((s) => s.name) }));
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
  for (const set of TRAIN_SETS) {
    const rest = TRAIN_SETS.filter((s) => s !== set).flatMap((s) => data.get(s)!);
    const weights = trainLogistic(examplesOf(rest));
    const scores = scoreExcerpts(data.get(set)!, weights).flat();
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
  const previous = JSON.parse(fs.readFileSync(WEIGHTS, 'utf8')) as DetectorWeights;
  const out: DetectorWeights = {
    ...weights,
    keepThreshold: previous.keepThreshold,
    addThreshold: previous.addThreshold,
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
