import { partner, responder, topicBefore } from '../../src/features/processing/action-items/addressee.ts';
import { detectedTask } from '../../src/features/processing/action-items/detected-task.ts';
import { defaultDetector } from '../../src/features/processing/action-items/detector.ts';
import { createSpeakerDirectory } from '../../src/features/processing/analyze-builtin.ts';
import {
  type ExtractedActionItem,
  ruleCandidates,
} from '../../src/features/processing/extract-action-items.ts';
import {
  describeRanking,
  type LabelledExcerpt,
  loadLabelledSet,
  logit,
  pct,
  rocAuc,
} from './action-item-data.ts';
import { type ExcerptSet, selectExcerpts } from './excerpts.ts';
import { type DenseExample, trainMlp } from './mlp.ts';
import { loadMeeting } from './qmsum.ts';
import { matches } from './quality.ts';
import { DIMS } from './sentence-vectors.ts';
import {
  describeMatches,
  extractWith,
  loadTrainingData,
  scoreExcerpts,
  sumMatches,
  TRAIN_SETS,
  train,
  trainedWithout,
} from './train-action-items.ts';

/**
 * `npx tsx bench/ingest/detector-ceiling.ts` (about 14 minutes on one core; `--perfect-only`: parts 2–4 alone,
 * about 5): how far a sentence detector could take the action items, on the eight training sets, each held out in
 * turn (decision 46).
 *
 * 1. **Ranking.** Per sentence: ROC AUC, precision where recall first reaches 20 / 30 / 45 %, and the highest
 *    recall at precision ≥ 65 %, for the shipped logistic regression (words only; words + sentence vectors) and a
 *    non-linear model beside it: a perceptron with one hidden layer over the sentence's vector, its neighbours'
 *    vectors, whether it opens a turn, and the words-only logit (stacked: for the training rows, from models that
 *    had not seen their set).
 * 2. **A perfect detector.** The rules and the detector's wording with the labels themselves as probabilities
 *    (1 on a task sentence, 0 elsewhere): what the items would score if the detector never erred, which bounds
 *    what any better detector can give the analyzer as it words items today.
 * 3. **The whole sentence as the item** where the detector is sure and neither a rule nor a cue words it: with the
 *    perfect detector (how much wording limits recall), and with the shipped detector's held-out-in-turn
 *    probabilities on `train`, `train2`, `train3` at several thresholds (what it would cost in precision).
 * 4. **Spans.** For the gold items whose turn the labeller recorded: does a contiguous span of at most 40 words of
 *    that turn, or the whole turn, match the item's text (what an extractive wording could reach at best)?
 */

const { data, vectors } = await loadTrainingData();
const BLIND_SETS: readonly ExcerptSet[] = ['heldout', 'test', 'final', 'final2'];
const perfectOnly = process.argv.includes('--perfect-only');
const labelsOf = (excerpts: readonly LabelledExcerpt[]) => excerpts.flatMap((e) => e.labels);

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
for (const m of perfectOnly ? [] : models)
  lines.push(`  ${m}: ${describeRanking(pooled.get(m)!, allLabels)}`);

// Parts 2 and 3: the items of given probabilities, and the whole sentence as the item where the detector is sure
// and no rule matched and no cue words it.
const OPENING =
  /^(?:(?:um+|uh+|so|well|yeah|okay|ok|and|but|oh|right|i mean|you know|like|alright|mm-hmm|mm)\b[\s,.]*)+/i;
/** The shipped detector's thresholds with vectors (it adds no item of its own), and a perfect detector's. */
const SHIPPED = defaultDetector().thresholds(true);
const PERFECT = { keep: 0.5, add: 0.5, keepCommitted: 0.5 };
/** The sentence without hesitations, its opening discourse words and its final stop. */
const spoken = (text: string) =>
  text
    .replace(/\s+([,.?!'])/g, '$1')
    .replace(/\b(?:um+|uh+)\b,?\s*/gi, '')
    .replace(OPENING, '')
    .replace(/[.?!]+$/, '')
    .trim();
/** The sentences at probability ≥ `threshold` that no rule or cue words, each whole as an item (≥ 4 words). */
function wholeSentences(
  e: LabelledExcerpt,
  scores: readonly number[],
  threshold: number,
): ExtractedActionItem[] {
  const speakers = createSpeakerDirectory(e.speakers);
  const candidates = ruleCandidates(e.sentences, speakers);
  return e.sentences.flatMap((s, i) => {
    if (scores[i]! < threshold || candidates[i]!.found.length || detectedTask(s, e.sentences, speakers))
      return [];
    const text = spoken(s.text);
    if (text.split(/\s+/).length < 4) return [];
    const lower = text.toLowerCase();
    const we = /\b(?:we|we'll|we're|let's|us|our)\b/.test(lower);
    const you = /\byou(?:'ll|'re|r)?\b/.test(lower) && !/\byou know\b/.test(lower);
    const byMe = /\b(?:i|i'll|i'm|i'd|i've|me|my)\b/.test(lower);
    let assignee: string | undefined;
    if (byMe && !we && !you) assignee = speakers.nameOf(s.speaker);
    else if (you && !we)
      assignee =
        topicBefore(s.text, s, e.sentences, speakers) ??
        responder(s, e.sentences, speakers) ??
        partner(s, e.sentences, speakers);
    return [{ text, ...(assignee ? { assignee } : {}) }];
  });
}
/** Items listed and right over excerpts with their probabilities; whole sentences added at `threshold` (∞: none). */
function tally(
  pairs: readonly (readonly [LabelledExcerpt, readonly number[]])[],
  thresholds: { keep: number; add: number; keepCommitted: number },
  threshold = Number.POSITIVE_INFINITY,
): string {
  const base = pairs.map(([e, scores]) => [e, extractWith(e, scores, thresholds)] as const);
  if (threshold > 1) return describeMatches(sumMatches(base));
  const added = pairs.map(([e, scores]) => wholeSentences(e, scores, threshold));
  const before = sumMatches(base);
  const after = sumMatches(base.map(([e, items], k) => [e, [...items, ...added[k]!]] as const));
  return `${describeMatches(after)} (${after.predicted - before.predicted} whole sentences, ${after.correct - before.correct} of them right)`;
}
const labelled = (excerpts: readonly LabelledExcerpt[]) => excerpts.map((e) => [e, e.labels] as const);
const trainingSets = labelled(TRAIN_SETS.flatMap((s) => data.get(s)!));
const blind = new Map(BLIND_SETS.map((s) => [s, loadLabelledSet(s)] as const));
const excerptsOf = (set: ExcerptSet) => data.get(set) ?? blind.get(set)!;
const blindSets = labelled(BLIND_SETS.flatMap(excerptsOf));
lines.push(
  `a perfect detector with today's rules and wording, on the training sets: ${tally(trainingSets, PERFECT)}`,
  `  on the four blind sets (their labels used as the detector, nothing chosen): ${tally(blindSets, PERFECT)}`,
  `the whole sentence as the item, perfect detector, training sets: ${tally(trainingSets, PERFECT, 0.5)}`,
  `  blind sets: ${tally(blindSets, PERFECT, 0.5)}`,
);
const heldOut = (['train', 'train2', 'train3'] as const).flatMap((set) => {
  const excerpts = data.get(set)!;
  const scores = scoreExcerpts(excerpts, trainedWithout(set, data, vectors), vectors.get(set)!);
  return excerpts.map((e, x) => [e, scores[x]!] as const);
});
lines.push(`  shipped detector held out in turn on train, train2, train3: ${tally(heldOut, SHIPPED)}`);
for (const threshold of [0.8, 0.6, 0.5, 0.4])
  lines.push(`    and the sentences at p ≥ ${threshold}: ${tally(heldOut, SHIPPED, threshold)}`);

/** Of the items with a recorded turn: how many a span of ≤ 40 words of it matches, and how many the whole turn. */
function spans(sets: readonly ExcerptSet[]): string {
  const sum = { items: 0, span: 0, turn: 0 };
  for (const set of sets) {
    const meetings = new Map(selectExcerpts(set).map((x) => [x.id, x.meeting]));
    for (const e of excerptsOf(set)) {
      const turns = loadMeeting(meetings.get(e.id)!).turns;
      for (const g of e.gold) {
        if (g.turn === undefined) continue;
        sum.items++;
        const words = turns[g.turn]!.content.split(/\s+/).filter(Boolean);
        const says = (text: string) => matches({ text, ...(g.assignee ? { assignee: g.assignee } : {}) }, g);
        if (says(words.join(' '))) sum.turn++;
        const spanned = words.some((_, i) =>
          words.slice(i + 1, i + 41).some((_, k) => says(words.slice(i, i + k + 1).join(' '))),
        );
        if (spanned) sum.span++;
      }
    }
  }
  return `${sum.items} items with their turn: a span of ≤ 40 words matches ${sum.span} (${pct(sum.span / sum.items)}), the whole turn ${sum.turn} (${pct(sum.turn / sum.items)})`;
}
lines.push(`spans, training sets: ${spans(TRAIN_SETS)}`, `  blind sets: ${spans(BLIND_SETS)}`);
process.stdout.write(`${lines.join('\n')}\n`);
