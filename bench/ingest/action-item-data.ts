import fs from 'node:fs';
import type { Sentence } from '../../src/features/processing/sentences.ts';
import { contentWords, splitSentences, tokenize } from '../../src/features/processing/sentences.ts';
import { porterStem } from '../../src/features/search/text/porter-stem.ts';
import { type ExcerptSet, selectExcerpts } from './excerpts.ts';
import { loadMeeting, toSegments } from './qmsum.ts';
import { type GoldItem, LABELS, type LabelFile } from './quality.ts';

/** One labelled excerpt as the analyzer sees it, with each sentence marked when it says a gold item. */
export interface LabelledExcerpt {
  set: ExcerptSet;
  id: string;
  createdAt: string;
  segments: ReturnType<typeof toSegments>;
  speakers: { label: string; name: string }[];
  sentences: Sentence[];
  /** 1 when the sentence says one of the gold items. */
  labels: number[];
  gold: GoldItem[];
  /** Gold items no sentence could be aligned with (paraphrased beyond recognition). */
  unaligned: number;
}

/** Porter-stemmed content words, as the quality matcher compares them. */
export function terms(text: string): Set<string> {
  return new Set(contentWords(tokenize(text)).map((w) => porterStem(w.replace(/'.*$/, ''))));
}

/**
 * Loads a labelled set and marks, for every gold item, the sentence that says it: the sentence of the item's
 * `turn` (when the label gives one) that shares most of its content words (the longest when none shares any),
 * otherwise the sentence of the whole excerpt that does, if it shares at least half of them.
 */
export function loadLabelledSet(set: ExcerptSet): LabelledExcerpt[] {
  const file = JSON.parse(fs.readFileSync(LABELS[set], 'utf8')) as LabelFile;
  const selected = new Map(selectExcerpts(set).map((e) => [e.id, e]));
  return file.excerpts.map((labelled) => {
    const excerpt = selected.get(labelled.id);
    if (!excerpt) throw new Error(`label ${labelled.id} is not one of the selected excerpts of ${set}`);
    const turns = loadMeeting(excerpt.meeting).turns.slice(excerpt.from, excerpt.to);
    // toSegments drops empty turns: remember which transcript turn each segment is.
    const turnOfSegment = turns.flatMap((t, i) => (t.content.trim() === '' ? [] : [excerpt.from + i]));
    const segments = toSegments(turns);
    const speakers = [...new Set(segments.map((s) => s.speaker))].map((label) => ({ label, name: label }));
    const sentences = splitSentences(segments);
    const labels = sentences.map(() => 0);
    const sentenceTerms = sentences.map((s) => terms(s.text));
    let unaligned = 0;
    for (const item of labelled.items) {
      const g = terms(item.text);
      let best = -1;
      let bestScore = -1;
      sentences.forEach((s, i) => {
        if (item.turn !== undefined && turnOfSegment[s.segmentIndex] !== item.turn) return;
        let shared = 0;
        for (const t of g) if (sentenceTerms[i]!.has(t)) shared++;
        const score = g.size ? shared / g.size : 0;
        // Within the item's turn any sentence will do (the longest if none shares a word); elsewhere only a match.
        const better =
          score > bestScore || (score === bestScore && s.words.length > sentences[best]!.words.length);
        if (better && (item.turn !== undefined || score > 0)) {
          bestScore = score;
          best = i;
        }
      });
      if (best >= 0 && (item.turn !== undefined || bestScore >= 0.5)) labels[best] = 1;
      else unaligned++;
    }
    return {
      set,
      id: labelled.id,
      createdAt: file.created_at,
      segments,
      speakers,
      sentences,
      labels,
      gold: labelled.items,
      unaligned,
    };
  });
}

/** ROC AUC of scores against 0/1 labels (the probability that a positive outranks a negative; ties count half). */
export function rocAuc(scores: readonly number[], labels: readonly number[]): number {
  const order = scores.map((s, i) => [s, labels[i]!] as const).sort((a, b) => a[0] - b[0]);
  let positives = 0;
  let negatives = 0;
  let rankSum = 0;
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j < order.length && order[j]![0] === order[i]![0]) j++;
    const rank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) {
      if (order[k]![1]) {
        positives++;
        rankSum += rank;
      } else negatives++;
    }
    i = j;
  }
  if (!positives || !negatives) return Number.NaN;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

/** Precision where recall first reaches each target, and the highest recall at precision ≥ `precisionGoal`. */
export function ranking(scores: readonly number[], labels: readonly number[], precisionGoal = 0.65) {
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

export const pct = (x: number | undefined) => (x === undefined ? '—' : `${(x * 100).toFixed(1)} %`);
export const logit = (p: number) => Math.log(Math.max(p, 1e-6) / Math.max(1 - p, 1e-6));

/** `ranking` as one line of a report. */
export function describeRanking(scores: readonly number[], labels: readonly number[]): string {
  const r = ranking(scores, labels);
  return `ROC AUC ${r.auc.toFixed(3)}; precision at recall 20 % ${pct(r.precisionAt[0.2])}, 30 % ${pct(r.precisionAt[0.3])}, 45 % ${pct(r.precisionAt[0.45])}; recall at precision ≥ 65 % ${pct(r.recallAtGoal)}`;
}
