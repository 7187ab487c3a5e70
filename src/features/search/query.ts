import { isStopword, QUESTION_WORDS, stem, words } from './text/tokens.ts';

/** At most this many words of a query go to the keyword index (a 1000-character query has ~170). */
const MAX_TERMS = 24;

export interface AnalyzedQuery {
  raw: string;
  /**
   * Words for the keyword index, folded and unique: the query's content words without question phrasing
   * ("what did … say about"); when nothing is left, the question words; when only function words were
   * given, those. Empty for a query without letters or digits (emoji, punctuation).
   */
  terms: string[];
  /** Porter stems of `terms`, in the same order: what the keyword index matched. */
  stems: string[];
  /** Terms that are content words (not question phrasing, not function words). */
  content: boolean[];
  /** How much each term counts in coverage: content words 1, question phrasing 0.25, function words 0.05. */
  weight: number[];
}

/** Splits a query into what the keyword index and the scorer use. */
export function analyzeQuery(raw: string): AnalyzedQuery {
  const all = [...new Set(words(raw))];
  const content = all.filter((w) => !isStopword(w) && !QUESTION_WORDS.has(w));
  const question = all.filter((w) => !isStopword(w) && QUESTION_WORDS.has(w));
  const terms = (content.length ? content : question.length ? question : all).slice(0, MAX_TERMS);
  return {
    raw,
    terms,
    stems: terms.map(stem),
    content: terms.map((t) => !isStopword(t) && !QUESTION_WORDS.has(t)),
    weight: terms.map((t) => (isStopword(t) ? 0.05 : QUESTION_WORDS.has(t) ? 0.25 : 1)),
  };
}
