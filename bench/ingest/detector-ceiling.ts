import { type LabelledExcerpt, loadLabelledSet, rocAuc } from './action-item-data.ts';
import type { ExcerptSet } from './excerpts.ts';
import { type DenseExample, trainMlp } from './mlp.ts';
import { DIMS } from './sentence-vectors.ts';
import {
  countMatches,
  extractWith,
  loadTrainingData,
  scoreExcerpts,
  TRAIN_SETS,
  train,
  trainedWithout,
} from './train-action-items.ts';

/**
 * `npx tsx bench/ingest/detector-ceiling.ts` (about 9 minutes on one core; `--perfect-only`: part 2 alone): how far a sentence detector could take
 * the action items, on the eight training sets, each held out in turn (decision 46).
 *
 * 1. **Ranking.** Per sentence: ROC AUC, precision where recall first reaches 20 / 30 / 45 %, and the highest
 *    recall at precision ≥ 65 %, for the shipped logistic regression (words only; words + sentence vectors) and a
 *    non-linear model beside it: a perceptron with one hidden layer over the sentence's vector, its neighbours'
 *    vectors, whether it opens a turn, and the words-only logit (stacked: for the training rows, from models that
 *    had not seen their set).
 * 2. **A perfect detector.** The rules and the detector's wording with the labels themselves as probabilities
 *    (1 on a task sentence, 0 elsewhere): what the items would score if the detector never erred, which bounds
 *    what any better detector can give the analyzer as it words items today.
 */

const { data, vectors } = await loadTrainingData();
const BLIND_SETS: readonly ExcerptSet[] = ['heldout', 'test', 'final', 'final2'];
const perfectOnly = process.argv.includes('--perfect-only');
const labelsOf = (excerpts: readonly LabelledExcerpt[]) => excerpts.flatMap((e) => e.labels);
const pct = (x: number | undefined) => (x === undefined ? '—' : `${(x * 100).toFixed(1)} %`);
const logit = (p: number) => Math.log(Math.max(p, 1e-6) / Math.max(1 - p, 1e-6));

/** Precision where recall first reaches each target, and the highest recall at precision ≥ `precisionGoal`. */
function ranking(scores: readonly number[], labels: readonly number[], precisionGoal = 0.65) {
  const order = scores.map((s, i) => [s, labels[i]!] as const).sort((a, b) => b[0] - a[0]);
  const positives = labels.reduce((a, b) => a + b, 0);
  const targets = [0.2, 0.3, 0.45];
  const precisionAt: Record<string, number> = {};
  let found = 0;
  let recallAtGoal = 0;
  order.forEach(([, label], rank) => {
    found += label;
    const precision = found / (rank + 1);
    const recall = found / positives;
    for (const t of targets) if (recall >= t && precisionAt[t] === undefined) precisionAt[t] = precision;
    // At least ten sentences listed, so that one lucky sentence at the top does not count.
    if (rank >= 9 && precision >= precisionGoal) recallAtGoal = Math.max(recallAtGoal, recall);
  });
  return { auc: rocAuc(scores, labels), precisionAt, recallAtGoal };
}

/** The words-only logit of every sentence of each set, from a model trained on the other sets given. */
function wordLogits(sets: readonly ExcerptSet[]): Map<ExcerptSet, number[][]> {
  return new Map(
    sets.map((set) => {
      const weights = train(sets.filter((s) => s !== set).flatMap((s) => data.get(s)!));
      return [set, scoreExcerpts(data.get(set)!, weights).map((row) => row.map(logit))] as const;
    }),
  );
}

/** The perceptron's inputs: the sentence's vector, the previous and next sentences', a turn start, the logit. */
function denseRows(set: ExcerptSet, logits: readonly (readonly number[])[]): DenseExample[] {
  const setVectors = vectors.get(set)!;
  return data.get(set)!.flatMap((e, x) =>
    e.sentences.map((s, i) => {
      const row = new Float32Array(3 * DIMS + 2);
      row.set(setVectors[x]![i]!, 0);
      if (i > 0) row.set(setVectors[x]![i - 1]!, DIMS);
      if (i + 1 < e.sentences.length) row.set(setVectors[x]![i + 1]!, 2 * DIMS);
      row[3 * DIMS] = i === 0 || e.sentences[i - 1]!.segmentIndex !== s.segmentIndex ? 1 : 0;
      row[3 * DIMS + 1] = logits[x]![i]! / 4;
      return { x: row, y: e.labels[i]! };
    }),
  );
}

const models = ['words only', 'words + vectors', 'perceptron'] as const;
const pooled = new Map(models.map((m) => [m, [] as number[]]));
const lines: string[] = [];
for (const held of perfectOnly ? [] : TRAIN_SETS) {
  const rest = TRAIN_SETS.filter((s) => s !== held);
  const excerpts = data.get(held)!;
  const labels = labelsOf(excerpts);
  const words = scoreExcerpts(excerpts, trainedWithout(held, data));
  const withVectors = scoreExcerpts(excerpts, trainedWithout(held, data, vectors), vectors.get(held)!);
  const inner = wordLogits(rest);
  const perceptron = trainMlp(rest.flatMap((s) => denseRows(s, inner.get(s)!)));
  const stacked = denseRows(
    held,
    words.map((row) => row.map(logit)),
  ).map((r) => perceptron(r.x));
  const scores = { 'words only': words.flat(), 'words + vectors': withVectors.flat(), perceptron: stacked };
  for (const m of models) pooled.get(m)!.push(...scores[m]);
  lines.push(
    `${held} held out: ROC AUC ${models.map((m) => `${m} ${rocAuc(scores[m], labels).toFixed(3)}`).join(', ')}`,
  );
}
const allLabels = TRAIN_SETS.flatMap((s) => labelsOf(data.get(s)!));
if (!perfectOnly)
  lines.push(`pooled, ${allLabels.length} sentences, ${allLabels.filter(Boolean).length} task sentences:`);
for (const m of perfectOnly ? [] : models) {
  const r = ranking(pooled.get(m)!, allLabels);
  lines.push(
    `  ${m}: ROC AUC ${r.auc.toFixed(3)}; precision at recall 20 % ${pct(r.precisionAt[0.2])}, 30 % ${pct(r.precisionAt[0.3])}, 45 % ${pct(r.precisionAt[0.45])}; recall at precision ≥ 65 % ${pct(r.recallAtGoal)}`,
  );
}

// A perfect detector: the labels as probabilities.
function perfect(excerpts: readonly LabelledExcerpt[]): string {
  const sum = { correct: 0, predicted: 0, gold: 0 };
  for (const e of excerpts) {
    const c = countMatches(extractWith(e, e.labels, { keep: 0.5, add: 0.5, keepCommitted: 0.5 }), e);
    sum.correct += c.correct;
    sum.predicted += c.predicted;
    sum.gold += c.gold;
  }
  return `${sum.predicted} items, ${sum.correct} right of ${sum.gold}: precision ${pct(sum.correct / sum.predicted)}, recall ${pct(sum.correct / sum.gold)}`;
}
lines.push(
  `a perfect detector with today's rules and wording, on the training sets: ${perfect(TRAIN_SETS.flatMap((s) => data.get(s)!))}`,
  `  on the four blind sets (their labels used as the detector, nothing chosen): ${perfect(BLIND_SETS.flatMap((s) => loadLabelledSet(s)))}`,
);
process.stdout.write(`${lines.join('\n')}\n`);
