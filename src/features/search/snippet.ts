import { codePointLength, sliceCodePoints } from '../../lib/text.ts';
import { stem, tokenize } from './text/tokens.ts';

export const MAX_SNIPPET = 300;
const ELLIPSIS = '…';

export interface SnippetSource {
  text: string;
  /** Start of the chunk in the recording (transcript passages, highlights). */
  startMs: number | null;
  /** Start of each line of a transcript passage. */
  lineStarts: number[] | null;
}

export interface Snippet {
  text: string;
  /** Where the excerpt starts in the recording, when it comes from the transcript or a highlight. */
  matchedAtMs?: number;
  /** Distinct query terms the excerpt contains. */
  matchedTerms: number;
}

/**
 * The excerpt of at most 300 characters that best shows why a chunk matched: the window holding the most
 * query terms (weighted by rarity), cut at word boundaries, with an ellipsis where text was cut. Without a
 * lexical match (a semantic hit) it is the start of the chunk. Lines of a passage are joined with a space.
 */
export function buildSnippet(
  source: SnippetSource,
  weights: ReadonlyMap<string, number>,
  maxLength = MAX_SNIPPET,
): Snippet {
  const text = source.text;
  const tokens = tokenize(text);
  const hits = tokens.map((t) => weights.get(stem(t.word)) ?? 0);
  let bestStart = 0;
  let bestEnd = 0;
  let bestScore = -1;
  let bestTerms = 0;
  if (tokens.length) {
    const budget = maxLength - 2 * ELLIPSIS.length;
    let end = 0;
    for (let start = 0; start < tokens.length; start++) {
      if (end < start) end = start;
      while (end + 1 < tokens.length && tokens[end + 1]!.end - tokens[start]!.start <= budget) end++;
      if (tokens[end]!.end - tokens[start]!.start > budget) continue;
      const seen = new Map<string, number>();
      let count = 0;
      for (let i = start; i <= end; i++) {
        if (hits[i]! > 0) {
          seen.set(stem(tokens[i]!.word), hits[i]!);
          count++;
        }
      }
      let score = 0;
      for (const w of seen.values()) score += w;
      score += 0.01 * count;
      // Ties go to the earlier window; a window starting at a match beats one starting mid-sentence before it.
      if (score > bestScore + 1e-9) {
        bestScore = score;
        bestStart = start;
        bestEnd = end;
        bestTerms = seen.size;
      }
      if (bestScore <= 0 && start === 0) {
        bestStart = 0;
        bestEnd = end;
      }
    }
  }
  if (bestTerms > 0) {
    // Start at the first match of the window (its speaker line, below), then use the room left after it.
    while (bestStart < bestEnd && hits[bestStart]! <= 0) bestStart++;
    const budget = maxLength - 2 * ELLIPSIS.length;
    while (bestEnd + 1 < tokens.length && tokens[bestEnd + 1]!.end - tokens[bestStart]!.start <= budget)
      bestEnd++;
  }
  const firstMatch = bestTerms > 0 ? tokens[bestStart]!.start : 0;
  let from = tokens.length ? tokens[bestStart]!.start : 0;
  let to = tokens.length ? tokens[bestEnd]!.end : Math.min(text.length, maxLength);
  // Begin at the start of the speaker line (or sentence) when the window still fits.
  const lineStart = text.lastIndexOf('\n', from - 1) + 1;
  if (bestTerms > 0 && from - lineStart < 60 && to - lineStart <= maxLength - ELLIPSIS.length)
    from = lineStart;
  if (bestTerms === 0) {
    from = 0;
    to = tokens.length ? tokens[bestEnd]!.end : to;
  }
  // Keep closing punctuation of the last word.
  while (to < text.length && /[.!?,;:)"'»”’]/.test(text[to]!) && to - from < maxLength - 1) to++;
  let out = text.slice(from, to).replace(/\s*\n\s*/g, ' ');
  if (from > 0) out = ELLIPSIS + out;
  if (to < text.length) out += ELLIPSIS;
  if (codePointLength(out) > maxLength) {
    out = `${sliceCodePoints(out, maxLength - 1).replace(/\s+\S*$/, '')}${ELLIPSIS}`;
  }

  const line = countNewlines(text, Math.max(from, firstMatch));
  const matchedAtMs = source.lineStarts?.[line] ?? source.startMs ?? undefined;
  return { text: out, matchedTerms: bestTerms, ...(matchedAtMs !== undefined ? { matchedAtMs } : {}) };
}

function countNewlines(text: string, upTo: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < upTo; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
