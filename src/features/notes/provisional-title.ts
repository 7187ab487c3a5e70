import { codePointLength, sliceCodePoints } from '../../lib/text.ts';

/**
 * A readable title until analysis writes the real one: the first ten words of the transcript, cut by code
 * points (never inside an emoji) to at most 78 with "…" when longer than 80. For notes and recordings alike.
 */
export function provisionalTitle(segments: readonly { text: string }[]): string {
  const words = segments
    .map((s) => s.text)
    .join(' ')
    .split(/\s+/)
    .filter(Boolean);
  const title = words.slice(0, 10).join(' ');
  if (codePointLength(title) > 80) return `${sliceCodePoints(title, 77).trimEnd()}…`;
  return title || 'Meeting notes';
}
