import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderTranscript } from '../../src/features/notes/notes.view.ts';
import { runEveryStage } from './adversarial-text.ts';

/**
 * Hostile text at every analyzer stage (parsing, sentences, summary, title, highlights, action items, due
 * dates, chunking, snippets, search tokens and stems): long runs of one character class, repeated words and
 * triggers, huge turns, thousands of tiny turns, astral characters and lone surrogates. Every stage must finish;
 * before the patterns were made linear, one 320-letter word took seconds and a few thousand took hours.
 * Timing is measured by `npm run bench:isolation`, not here.
 */
const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
/** Long enough that quadratic work shows (seconds per case), short enough to keep the file a few seconds. */
const MAX_LENGTH = Number(process.env.ADVERSARIAL_LENGTH ?? 4_000);

/** One character of every class the patterns care about. */
const CHARACTERS = [
  'x',
  'X',
  'é',
  'É',
  'ß',
  '7',
  '_',
  "'",
  '-',
  ' ',
  '\t',
  '\n',
  '\r',
  ',',
  '.',
  '!',
  '?',
  ';',
  ':',
  '"',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '@',
  '/',
  '\u00a0',
  '\u200b',
  '\u0301',
  '😀',
  '\uD800',
  '\uDFFF',
  '中',
  'ي',
];
/** Words and marks the action-item, sentence and date patterns start from. */
const UNITS = [
  'and ',
  'the ',
  'The ',
  'a ',
  'you ',
  "i'll ",
  'I will ',
  "let's ",
  'we need to ',
  'can you ',
  'Maria ',
  'Maria, ',
  'Maria Lopez ',
  'the Industrial Designer ',
  'for the design ',
  'the x for the ',
  ', the ',
  'is ',
  'will ',
  'please ',
  'um ',
  'uh, ',
  'mm-hmm ',
  'Dr. ',
  'J. ',
  '. A',
  'x. ',
  'by Friday ',
  'next week ',
  'the 15th ',
  'action item: ',
  'to-do ',
  "Maria's job is to ",
  '{vocalsound} ',
  '[laughter] ',
  'A: ',
  '1\n',
  '00:00:01.000 --> ',
  'WEBVTT\n\n',
  '<v A>',
  'x\n\n',
  'send the deck ',
  'ing ',
  'mmm',
  'uuum',
];

const length = fc.integer({ min: 1, max: MAX_LENGTH });
const repeat = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);

/** A run of one character or one word, as a pasted blob, a stuck key or a transcription glitch gives. */
const run = fc.oneof(
  fc.tuple(fc.constantFrom(...CHARACTERS), length).map(([c, n]) => repeat(c, n)),
  fc.tuple(fc.constantFrom(...UNITS), length).map(([u, n]) => repeat(u, n)),
  fc
    .tuple(fc.constantFrom(...CHARACTERS), fc.constantFrom(...CHARACTERS), length)
    .map(([a, b, n]) => repeat(a + b, n)),
);
/** Arbitrary text of every Unicode plane, surrogate halves included. */
const noise = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 100 }),
  fc.string({ unit: fc.constantFrom(...CHARACTERS), maxLength: 400 }),
);
/** A transcript built of runs and noise: one huge turn, or thousands of tiny ones. */
const text = fc.oneof(
  run,
  noise,
  fc.array(fc.oneof(run, noise), { minLength: 2, maxLength: 4 }).map((parts) => parts.join('')),
  fc
    .tuple(fc.constantFrom(...UNITS, ...CHARACTERS), fc.integer({ min: 1, max: 3_000 }))
    .map(([u, n]) => Array.from({ length: n }, (_, i) => `S${i % 7}: ${u}`).join('\n')),
  fc
    .tuple(run, fc.constantFrom('A: ', 'Maria Lopez: ', '00:00:00.000 --> 00:00:05.000\n'))
    .map(([r, p]) => p + r),
);

describe('every analyzer stage on adversarial text', () => {
  it('finishes on runs, noise, huge turns and thousands of tiny turns', () => {
    fc.assert(
      fc.property(text, (t) => {
        runEveryStage(t);
      }),
      { numRuns: NUM_RUNS, seed: SEED },
    );
  });

  it('finishes on the runs that used to backtrack for hours', () => {
    for (const t of [
      'x'.repeat(MAX_LENGTH),
      'X'.repeat(MAX_LENGTH),
      'é'.repeat(MAX_LENGTH),
      'aB'.repeat(MAX_LENGTH / 2),
      `Maria, can you ${'x'.repeat(MAX_LENGTH)}`,
      `A: ${"i'll ".repeat(MAX_LENGTH / 5)}`,
      '?'.repeat(MAX_LENGTH),
      ' '.repeat(MAX_LENGTH),
      `x${' '.repeat(MAX_LENGTH)}x`,
      // Trailing trims (`[;\s]+$`) tried from every position of a run that does not reach the end.
      `A: I'll send the report${'; '.repeat(MAX_LENGTH / 2)}x`,
      `A: I'll send the report${', okay'.repeat(MAX_LENGTH / 6)} x`,
      `A: Maria, can you send it${' and'.repeat(MAX_LENGTH / 4)} x`,
      // A role said before "you", a name between commas inside a request (issue 17, third round).
      `A: ${'as the industrial designer '.repeat(MAX_LENGTH / 27)}, you're gonna work on it`,
      `A: you will have to work more, ${'Maria, '.repeat(MAX_LENGTH / 7)}on the buttons`,
      `A: why don't we ${'plan to '.repeat(MAX_LENGTH / 8)}x?`,
    ])
      expect(() => runEveryStage(t)).not.toThrow();
  });

  it('renders a transcript whose turn holds a long run of spaces (it took minutes for 200,000)', () => {
    const text = renderTranscript([{ speaker: 'A', text: `x${' '.repeat(200_000)}\n x` }]);
    expect(text).toBe('A: x x');
  });

  it('finishes on timed segments with huge and empty texts', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(run, noise), { minLength: 1, maxLength: 50 }), (texts) => {
        runEveryStage(
          texts.join(' '),
          texts.map((t, i) => ({
            speaker: `S${i % 3}`,
            start_ms: i * 1000,
            end_ms: i * 1000 + 500,
            text: t,
          })),
        );
      }),
      { numRuns: Math.ceil(NUM_RUNS / 4), seed: SEED },
    );
  });
});
