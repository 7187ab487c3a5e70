import { cleanText } from '../processing/sentences.ts';
import { STOPWORDS, stem, words } from '../search/text/tokens.ts';

/** One speaker turn of a note, as stored. */
export interface AskSegment {
  speaker?: string | undefined;
  text: string;
  start_ms?: number | undefined;
  end_ms?: number | undefined;
}

/** A sentence of a turn: where it sits in the turn's own text (so its quote is verbatim) and its terms. */
export interface TurnSentence {
  turn: number;
  /** UTF-16 offsets of the sentence in the turn's text. */
  start: number;
  end: number;
  /** Readable form: annotation marks and fillers removed. */
  text: string;
  /** Stemmed content words (no function words). */
  terms: string[];
  /** Words of the readable form. */
  wordCount: number;
}

const ENDS = new Set(['.', '!', '?']);
const SPACE = /\s/;

/**
 * Splits a turn into sentences at a run of `.`, `!` or `?` followed by white space or the end, by one scan
 * (no regular expression over the text); every piece keeps its offsets in the original text.
 */
export function splitTurn(text: string, turn: number): TurnSentence[] {
  const out: TurnSentence[] = [];
  let start = 0;
  const push = (end: number) => {
    let s = start;
    while (s < end && SPACE.test(text[s]!)) s++;
    let e = end;
    while (e > s && SPACE.test(text[e - 1]!)) e--;
    if (e > s) out.push(sentenceAt(text, turn, s, e));
  };
  for (let i = 0; i < text.length; i++) {
    if (!ENDS.has(text[i]!)) continue;
    let j = i + 1;
    while (j < text.length && ENDS.has(text[j]!)) j++;
    if (j === text.length || SPACE.test(text[j]!)) {
      push(j);
      start = j;
    }
    i = j - 1;
  }
  push(text.length);
  return out;
}

function sentenceAt(raw: string, turn: number, start: number, end: number): TurnSentence {
  const text = cleanText(raw.slice(start, end));
  const all = words(text);
  return {
    turn,
    start,
    end,
    text,
    terms: all.filter((w) => !STOPWORDS.has(w)).map(stem),
    wordCount: all.length,
  };
}
