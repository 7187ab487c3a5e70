import { codePointLength, sliceCodePoints } from '../../lib/text.ts';

const TITLE_WORDS = 10;
/** Longer titles are cut to 77 code points and "…". */
const MAX_CODE_POINTS = 80;
/**
 * Pieces of a word are taken this many UTF-16 units at a time: once a title holds more than 80 code points
 * (at most 160 units each) it is cut anyway, so the scan stops there instead of reading a 2 MB "word" whole.
 */
const WORD_PIECE = /\S{1,400}/g;

/**
 * A readable title until analysis writes the real one: the first ten words of the transcript, cut by code
 * points (never inside an emoji) to at most 78 with "…" when longer than 80. For notes and recordings alike.
 * It reads only as far into the transcript as the title needs (it runs on the request's thread).
 */
export function provisionalTitle(segments: readonly { text: string }[]): string {
  const words: string[] = [];
  let units = 0;
  collect: for (const { text } of segments) {
    for (const m of text.matchAll(WORD_PIECE)) {
      words.push(m[0]);
      units += m[0].length + 1;
      if (words.length === TITLE_WORDS || units > 2 * MAX_CODE_POINTS + 1) break collect;
    }
  }
  const title = words.join(' ');
  if (codePointLength(title) > MAX_CODE_POINTS) return `${sliceCodePoints(title, 77).trimEnd()}…`;
  return title || 'Meeting notes';
}
