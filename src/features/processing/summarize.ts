import { contentWords, type Sentence, tidySentence, truncateText } from './sentences.ts';

/** A sentence with its salience: how densely it uses the words the whole transcript keeps coming back to. */
export interface ScoredSentence extends Sentence {
  score: number;
  /** Distinct stemmed content words, for redundancy checks. */
  terms: Set<string>;
}

const MIN_SUMMARY_WORDS = 8;
const MIN_SUMMARY_TERMS = 3;
const MAX_SUMMARY_WORDS = 50;
const MIN_SUMMARY_SENTENCES = 3;
const MAX_SUMMARY_SENTENCES = 6;
/** Sentences shorter than this are fragments more often than statements; their score is damped. */
const FULL_LENGTH = 6;
/** Two sentences sharing more than this share of their words say the same thing; keep one. */
const MAX_OVERLAP = 0.5;

/**
 * Scores every sentence by word-frequency salience (Luhn): each content word weighs its frequency in the
 * transcript relative to the most frequent one; a sentence scores the weight of its distinct content words
 * per word, damped for fragments and rambles so that neither dominates.
 */
export function scoreSentences(sentences: readonly Sentence[]): ScoredSentence[] {
  const frequency = new Map<string, number>();
  for (const sentence of sentences) {
    for (const word of contentWords(sentence.words)) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  }
  const top = Math.max(1, ...frequency.values());
  return sentences.map((sentence) => {
    const terms = new Set(contentWords(sentence.words));
    // A word said once is no theme: it adds nothing beyond what its length penalty takes away.
    let weight = 0;
    for (const term of terms) {
      const count = frequency.get(term) ?? 0;
      if (count > 1) weight += count / top;
    }
    const length = sentence.words.length;
    const lengthFactor = length < FULL_LENGTH ? length / FULL_LENGTH : Math.min(1, 30 / length);
    return { ...sentence, terms, score: length ? (weight / Math.sqrt(length)) * lengthFactor : 0 };
  });
}

/** Share of the smaller sentence's terms that the other one also has. */
export function overlapRatio(a: Set<string>, b: Set<string>): number {
  const smaller = a.size <= b.size ? a : b;
  const larger = smaller === a ? b : a;
  if (!smaller.size) return 1;
  let shared = 0;
  for (const term of smaller) if (larger.has(term)) shared++;
  return shared / smaller.size;
}

/** Sentences that can stand alone in a summary: statements of reasonable length that say something. */
function isSummaryCandidate(sentence: ScoredSentence): boolean {
  const length = sentence.words.length;
  return (
    length >= MIN_SUMMARY_WORDS &&
    length <= MAX_SUMMARY_WORDS &&
    sentence.terms.size >= MIN_SUMMARY_TERMS &&
    !sentence.text.endsWith('?') &&
    sentence.score > 0
  );
}

/** Picks up to `count` high-scoring sentences, skipping any that repeat one already picked. */
export function pickSalient(
  sentences: readonly ScoredSentence[],
  count: number,
  accept: (s: ScoredSentence) => boolean = () => true,
): ScoredSentence[] {
  const ranked = [...sentences].filter(accept).sort((a, b) => b.score - a.score || a.index - b.index);
  const picked: ScoredSentence[] = [];
  for (const sentence of ranked) {
    if (picked.length >= count) break;
    if (picked.some((p) => overlapRatio(p.terms, sentence.terms) > MAX_OVERLAP)) continue;
    picked.push(sentence);
  }
  return picked;
}

/** How many sentences a summary of this transcript gets: 3–6, one per ten sentences said. */
export function summaryLength(sentenceCount: number): number {
  return Math.min(MAX_SUMMARY_SENTENCES, Math.max(MIN_SUMMARY_SENTENCES, Math.round(sentenceCount / 10)));
}

/**
 * An extractive summary: the most salient, non-redundant statements, in transcript order. Short
 * transcripts get fewer sentences; a transcript of fragments only is summarised by its first words.
 */
export function summarizeTranscript(sentences: readonly ScoredSentence[]): string {
  const picked = pickSalient(sentences, summaryLength(sentences.length), isSummaryCandidate);
  if (picked.length) return tidyInOrder(picked, Number.POSITIVE_INFINITY);
  // Fragments only: a fragment can be a whole transcript without a full stop, so each is cut to a summary's size.
  return tidyInOrder(
    pickSalient(sentences, MIN_SUMMARY_SENTENCES, (s) => s.words.length > 0),
    MAX_FRAGMENT_CHARS,
  );
}

/** Longest fragment a summary of fragments quotes: about as long as the longest summary sentence. */
const MAX_FRAGMENT_CHARS = 400;

function tidyInOrder(picked: ScoredSentence[], maxChars: number): string {
  return picked
    .sort((a, b) => a.index - b.index)
    .map((s) => truncateText(tidySentence(s.text), maxChars))
    .join(' ');
}
