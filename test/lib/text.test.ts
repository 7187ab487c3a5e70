import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SPOKEN_TAG } from '../../src/features/processing/action-items/lexicon.ts';
import { removeAtEnd, trimEndMatching } from '../../src/lib/text.ts';

/**
 * The linear forms of end-anchored trims: the same result as the regular expression they replace, which on a
 * long run inside a text (80 KB of "; " before a last word) took seconds, quadratic in the run.
 */
const tailText = fc.string({
  unit: fc.constantFrom('a', 'x', ' ', ',', ';', ':', '-', '.', '?', '\n', 'é'),
  maxLength: 60,
});

describe('trimEndMatching', () => {
  it('is text.replace(/[class]+$/, "") for any text', () => {
    fc.assert(
      fc.property(fc.oneof(tailText, fc.string({ unit: 'binary', maxLength: 60 })), (text) => {
        expect(trimEndMatching(text, /[,;:\s-]/)).toBe(text.replace(/[,;:\s-]+$/, ''));
        expect(trimEndMatching(text, /[.!?;:,\s]/)).toBe(text.replace(/[.!?;:,\s]+$/, ''));
      }),
    );
  });

  it('keeps a long run inside the text and trims the one at its end', () => {
    const inside = `send the report${'; '.repeat(50_000)}x`;
    expect(trimEndMatching(inside, /[;\s]/)).toBe(inside);
    expect(trimEndMatching(`${inside}; ; `, /[;\s]/)).toBe(inside);
  });
});

describe('removeAtEnd', () => {
  const tag = fc.array(fc.constantFrom(', okay', ' please', ' thanks', ' yeah', '?', '.', ' x', ' so'), {
    maxLength: 6,
  });

  it('is text.replace(pattern, "") when the match fits in the tail, however long the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), tag, (head, parts) => {
        // A last word before the tag, so the match cannot reach back into the head.
        const text = `${head} send it${parts.join('')}`;
        expect(removeAtEnd(text, SPOKEN_TAG)).toBe(text.replace(SPOKEN_TAG, ''));
      }),
    );
  });

  it('looks at the tail only', () => {
    const text = `x${', okay'.repeat(100)}`;
    // The last three ", okay" (18 characters) go; the 97 before them are not looked at.
    expect(removeAtEnd(text, SPOKEN_TAG, 18)).toBe(`x${', okay'.repeat(97)}`);
    expect(removeAtEnd(text, SPOKEN_TAG, 1000)).toBe('x');
  });

  it('starts the tail between words, so half a word is never taken for a whole one', () => {
    const text = `${'a '.repeat(100)}send the notebook`;
    // A tail of 2 would be "ok" of "notebook": no word starts inside it, so nothing goes.
    expect(removeAtEnd(text, SPOKEN_TAG, 2)).toBe(text);
    expect(removeAtEnd(`${text}, okay`, SPOKEN_TAG, 9)).toBe(text);
    expect(removeAtEnd(text, SPOKEN_TAG)).toBe(text);
  });
});
