import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AskNote } from '../../src/features/ask/extractive.ts';
import { renderAskPrompt, verifyAnswer } from '../../src/features/ask/generative.ts';

const NOTE: AskNote = {
  id: 'nt_a',
  title: 'Pricing',
  created_at: '2026-11-20T10:00:00.000Z',
  segments: [
    { speaker: 'Anna', text: 'Good morning everyone.', start_ms: 0, end_ms: 1000 },
    {
      speaker: 'Anna',
      text: 'We  decided the premium tier\ncosts forty euros.',
      start_ms: 1000,
      end_ms: 5000,
    },
    { speaker: 'Carl', text: 'The launch moves to March.', start_ms: 5000, end_ms: 9000 },
  ],
};

/** The prompt for Anna's decision from turn `from` to the note's last turn, within `budget` tokens. */
const renderTurns = (from: number, budget: number) =>
  renderAskPrompt('What did Anna decide?', [NOTE], [{ note_id: 'nt_a', from, to: 2 }], budget);

describe('renderAskPrompt', () => {
  it('numbers the passage turns within the budget, and gives up when none fits', () => {
    const prompt = renderTurns(0, 2000)!;
    expect(prompt.user).toContain('[2] Anna: We decided the premium tier costs forty euros.');
    expect(prompt.lines.size).toBe(3);
    const small = renderTurns(1, 155)!;
    expect([...small.lines.values()].map((l) => l.turn)).toEqual([1]);
    expect(renderTurns(0, 10)).toBeUndefined();
    expect(renderAskPrompt('q', [NOTE], [{ note_id: 'nt_other', from: 0, to: 2 }], 2000)).toBeUndefined();
  });
});

describe('verifyAnswer', () => {
  const prompt = renderTurns(0, 2000)!;

  it('keeps verbatim quotes (also under a wrong line number), drops the rest and sentences left uncited', () => {
    const a = verifyAnswer(
      {
        answered: true,
        sentences: [
          {
            text: 'Premium costs forty euros [3].',
            citations: [{ line: 3, quote: '“premium tier costs forty euros”' }],
          },
          {
            text: 'It is cheap.',
            citations: [
              { line: 2, quote: 'it is cheap' },
              { line: 2, quote: 'euros' },
            ],
          },
          { text: 'Launch in March.', citations: [{ line: 77, quote: 'launch moves to March' }] },
        ],
      },
      prompt,
      8,
    );
    expect(a).toEqual({
      answered: true,
      answer: 'Premium costs forty euros. [1] Launch in March. [2]',
      citations: [
        expect.objectContaining({
          note_id: 'nt_a',
          quote: 'premium tier costs forty euros',
          speaker: 'Anna',
          start_ms: 1000,
        }),
        expect.objectContaining({ quote: 'launch moves to March', speaker: 'Carl', start_ms: 5000 }),
      ],
    });
    const capped = verifyAnswer(
      {
        answered: true,
        sentences: [
          { text: 'A.', citations: [{ line: 2, quote: 'premium tier' }] },
          { text: 'B.', citations: [{ line: 3, quote: 'launch moves' }] },
        ],
      },
      prompt,
      1,
    );
    expect(capped.answer).toBe('A. [1]');
  });

  it('handles adversarial model text quickly', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('[', ']', ' ', '1', '.', '\n', 'a'), maxLength: 300 }),
        (text) => {
          const a = verifyAnswer(
            { answered: true, sentences: [{ text, citations: [{ line: 2, quote: text }] }] },
            prompt,
            8,
          );
          expect(a.answer.includes('\n')).toBe(false);
        },
      ),
    );
    const hostile = `[${' '.repeat(200_000)}${'[1'.repeat(100_000)}${' .'.repeat(100_000)}`;
    const a = verifyAnswer(
      { answered: true, sentences: [{ text: hostile, citations: [{ line: 2, quote: 'premium tier' }] }] },
      prompt,
      8,
    );
    expect(a.citations.length).toBe(1);
  }, 60_000);
});
