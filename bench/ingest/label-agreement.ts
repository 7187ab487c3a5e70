import fs from 'node:fs';
import path from 'node:path';
import { defaultDetector } from '../../src/features/processing/action-items/detector.ts';
import type { ExtractedActionItem } from '../../src/features/processing/extract-action-items.ts';
import type { LabelledExcerpt } from './action-item-data.ts';
import type { ExcerptSet } from './excerpts.ts';
import { type GoldItem, LABEL_DIR } from './quality.ts';
import {
  countMatches,
  extractWith,
  loadTrainingData,
  scoreExcerpts,
  trainedWithout,
} from './train-action-items.ts';

/**
 * `npx tsx bench/ingest/label-agreement.ts`: how far two careful people agree on a meeting's action items. A
 * second labeller, who saw neither the first labels nor any code, labelled a content-blind sample of `train2` and
 * `train3` (every third and every sixth excerpt) under the same written policy
 * (labels/action-items.agreement.json). The second labels are scored against the first with the quality matcher
 * as if they were predictions, and the other way round; the analyzer is scored against the first labels on the
 * same excerpts, with probabilities from a detector that was not trained on the excerpt's set. Issue 17's goal
 * (precision ≥ 0.65, recall ≥ 0.45) reads differently once a second person's own figures are known.
 */

interface SecondLabels {
  description: string;
  excerpts: { set: ExcerptSet; id: string; items: GoldItem[] }[];
}

const second = JSON.parse(
  fs.readFileSync(path.join(LABEL_DIR, 'action-items.agreement.json'), 'utf8'),
) as SecondLabels;
const sets = [...new Set(second.excerpts.map((e) => e.set))];
const { data, vectors } = await loadTrainingData();
const first = new Map<string, LabelledExcerpt>();
for (const set of sets) for (const e of data.get(set) ?? []) first.set(`${set}/${e.id}`, e);

/** Predictions against gold items, summed over excerpts (one-to-one, in order, as the quality matcher counts). */
function score(pairs: { predicted: readonly ExtractedActionItem[]; excerpt: LabelledExcerpt }[]) {
  let correct = 0;
  let predicted = 0;
  let gold = 0;
  for (const { predicted: p, excerpt } of pairs) {
    const c = countMatches(p, excerpt);
    correct += c.correct;
    predicted += c.predicted;
    gold += c.gold;
  }
  return { correct, predicted, gold, precision: correct / predicted, recall: correct / gold };
}

const asGold = (excerpt: LabelledExcerpt, items: GoldItem[]): LabelledExcerpt => ({
  ...excerpt,
  gold: items,
});
const asPredicted = (items: readonly GoldItem[]): ExtractedActionItem[] =>
  items.map((g) => ({ text: g.text, ...(g.assignee ? { assignee: g.assignee } : {}) }));

const pairs = second.excerpts.map((e) => ({ e, excerpt: first.get(`${e.set}/${e.id}`)! }));
for (const { e, excerpt } of pairs)
  if (!excerpt) throw new Error(`${e.set}/${e.id} is not an excerpt of the first labels`);
const secondVsFirst = score(pairs.map(({ e, excerpt }) => ({ predicted: asPredicted(e.items), excerpt })));
const firstVsSecond = score(
  pairs.map(({ e, excerpt }) => ({
    predicted: asPredicted(excerpt.gold),
    excerpt: asGold(excerpt, e.items),
  })),
);

// The analyzer on the same excerpts, each set's probabilities from a model trained on the other sets, at the
// shipped thresholds.
const thresholds = defaultDetector().thresholds(true);
const analyzer: { predicted: ExtractedActionItem[]; excerpt: LabelledExcerpt }[] = [];
const againstSecond: typeof analyzer = [];
for (const set of sets) {
  const weights = trainedWithout(set, data, vectors);
  const excerpts = data.get(set)!;
  const scores = scoreExcerpts(excerpts, weights, vectors.get(set)!);
  excerpts.forEach((excerpt, i) => {
    const labelled = second.excerpts.find((e) => e.set === set && e.id === excerpt.id);
    if (!labelled) return;
    const predicted = extractWith(excerpt, scores[i], thresholds);
    analyzer.push({ predicted, excerpt });
    againstSecond.push({ predicted, excerpt: asGold(excerpt, labelled.items) });
  });
}
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const line = (name: string, s: ReturnType<typeof score>) =>
  `${name}: ${s.correct} of ${s.predicted} listed match, of ${s.gold} items: precision ${pct(s.precision)}, recall ${pct(s.recall)}`;
process.stdout.write(
  `${[
    `${pairs.length} excerpts (${sets.join(', ')}) labelled twice`,
    line('second labeller scored against the first', secondVsFirst),
    line('first labeller scored against the second', firstVsSecond),
    line('analyzer (held-out-in-turn probabilities) against the first', score(analyzer)),
    line('analyzer against the second', score(againstSecond)),
  ].join('\n')}\n`,
);
