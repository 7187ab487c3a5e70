import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { provisionalTitle } from '../../src/features/transcripts/provisional-title.ts';
import { codePointLength, sliceCodePoints } from '../../src/lib/text.ts';

/** The rule as written, reading the whole transcript: the first ten words, cut by code points beyond 80. */
function wholeTranscriptTitle(segments: readonly { text: string }[]): string {
  const words = segments
    .map((s) => s.text)
    .join(' ')
    .split(/\s+/)
    .filter(Boolean);
  const title = words.slice(0, 10).join(' ');
  if (codePointLength(title) > 80) return `${sliceCodePoints(title, 77).trimEnd()}…`;
  return title || 'Meeting notes';
}

const piece = fc.oneof(
  fc.constantFrom(' ', '  ', '\n', '\t', '\u00a0', '😀', 'é', '\ud800', 'x'),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.integer({ min: 1, max: 1200 }).map((n) => 'w'.repeat(n)),
  fc.integer({ min: 1, max: 600 }).map((n) => '😀'.repeat(n)),
  fc.integer({ min: 1, max: 800 }).map((n) => ' '.repeat(n)),
);
const segment = fc.array(piece, { maxLength: 14 }).map((parts) => ({ text: parts.join('') }));

describe('provisionalTitle', () => {
  it('is the first ten words of the whole transcript, however the text is cut into segments', () => {
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 8 }), (segments) => {
        expect(provisionalTitle(segments)).toBe(wholeTranscriptTitle(segments));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a 2 MB one-word transcript only as far as the title needs', () => {
    const word = 'x'.repeat(2 * 1024 * 1024);
    expect(provisionalTitle([{ text: word }])).toBe(`${'x'.repeat(77)}…`);
    expect(provisionalTitle([{ text: `${' '.repeat(1_000_000)}Budget review ${word}` }])).toBe(
      `Budget review ${'x'.repeat(63)}…`,
    );
    expect(provisionalTitle([{ text: '' }, { text: '   ' }])).toBe('Meeting notes');
  });
});
