import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { Piscina } from 'piscina';
import { afterAll, describe, expect, it } from 'vitest';
import type { TranscriptSegment } from '../../src/features/transcripts/parse-transcript.ts';
import { renderTranscript } from '../../src/features/transcripts/render-transcript.ts';

/**
 * Hostile text at every analyzer stage (parsing, sentences, summary, title, highlights, action items, due
 * dates, chunking, snippets, search tokens and stems): long runs of one character class, repeated words and
 * triggers, huge turns, thousands of tiny turns, astral characters and lone surrogates. Every stage must finish;
 * before the patterns were made linear, one 320-letter word took seconds and a few thousand took hours.
 * Timing is measured by `npm run bench:isolation`, not here.
 *
 * Each case runs in a thread of its own (adversarial-text.worker.ts), stopped after `CASE_LIMIT_MS`: a case that
 * backtracks for hours fails here with its text, where run in place it would hold the test file, and CI, until
 * killed (it did: a run of "mm-hmm" in the turn after another speaker's, once in a while in the segments case).
 * The limit is a hang detector, far above what any case takes on a loaded machine (about a second), not a timing
 * assertion.
 */
const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
/** Long enough that quadratic work shows (seconds per case), short enough to keep the file a few seconds. */
const MAX_LENGTH = Number(process.env.ADVERSARIAL_LENGTH ?? 4_000);
const CASE_LIMIT_MS = 60_000;

const thread = new Piscina({
  filename: new URL('./adversarial-text.worker.ts', import.meta.url).href,
  maxThreads: 1,
  execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href],
});
afterAll(() => thread.destroy());

/** What a failure names of a case: its length and how it starts and ends. */
const describeText = (text: string) =>
  `${text.length} characters: ${JSON.stringify(text.slice(0, 80))} … ${JSON.stringify(text.slice(-40))}`;

/** Runs every stage on the case in the thread; fails when it has not finished within `CASE_LIMIT_MS`. */
async function finishes(
  text: string,
  segments?: TranscriptSegment[],
  options: { pipeline?: boolean } = {},
): Promise<void> {
  const signal = AbortSignal.timeout(CASE_LIMIT_MS);
  try {
    await thread.run({ text, segments, ...options }, { signal });
  } catch (error) {
    if (!signal.aborted) throw error;
    const what = segments ? segments.map((s) => describeText(s.text)).join('\n') : describeText(text);
    throw new Error(`not finished within ${CASE_LIMIT_MS / 1000} s:\n${what}`);
  }
}

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
  it('finishes on runs, noise, huge turns and thousands of tiny turns', async () => {
    // A failing case is reported as found (with the seed), not shrunk: each shrinking step could take the limit.
    await fc.assert(
      fc.asyncProperty(text, (t) => finishes(t)),
      { numRuns: NUM_RUNS, seed: SEED, endOnFailure: true },
    );
  }, 600_000);

  it('finishes on the runs that used to backtrack for hours', async () => {
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
      // The learned detector's "the next turn is only listening sounds", two ways to split each "mm-hmm".
      `A: x\nB: ${'mm-hmm '.repeat(MAX_LENGTH / 7)}x`,
    ])
      await finishes(t);
    // The same reply as a timed segment after another speaker's (how the fuzzer found it).
    await finishes('', [
      { speaker: 'S0', start_ms: 0, end_ms: 500, text: 'x' },
      { speaker: 'S1', start_ms: 1000, end_ms: 1500, text: `${'mm-hmm '.repeat(150)}mm-hm` },
    ]);
  }, 600_000);

  it('parses, analyzes and chunks hostile turns of 400,000 to 1,000,000 characters that took minutes or hours', async () => {
    // Sizes where the old, quadratic patterns took several times the limit (measured on a loaded machine: 36 s
    // for the first at 200,000 characters), and the linear ones take about a second or less.
    const LONG = 400_000;
    const LONGER = 1_000_000;
    for (const t of [
      // Names that started at every capital inside a word (`\b` is ASCII-only): quadratic in the word.
      `A: ${repeat('x-B-', LONG)} and I will send it`,
      `A: ${repeat('bÀ', LONG)}\u0000 will do it`,
      `A: ${repeat('x-B-', LONGER)}'s job is to send it`,
      // Work named for someone, searched to the end of the clause from every "the": quadratic.
      `A: ${repeat('and the x ', LONGER)}for Maria.`,
      `A: ${repeat('Bob gets x ', LONGER)};`,
      // A filler after a sentence's end, then whitespace two patterns could share: quadratic.
      `A: Done! um${repeat('\t', LONG)}MMµ`,
      // A WebVTT voice tag of whitespace, and tags that never close.
      `WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v${repeat('\t', LONG)}x`,
      `WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n${repeat('<\u0000', LONGER)}`,
      // Listening sounds that end in something else: exponential.
      `A: x\nB: ${repeat('mm-hmm ', LONG)}x`,
      `A: so\nB: ${repeat('Mm-hmm, ', LONG)}I agree.\nA: Okay, you're going to send it.`,
    ])
      await finishes(t, undefined, { pipeline: true });
  }, 600_000);

  it('renders a transcript whose turn holds a long run of spaces (it took minutes for 200,000)', () => {
    const text = renderTranscript([{ speaker: 'A', text: `x${' '.repeat(200_000)}\n x` }]);
    expect(text).toBe('A: x x');
  });

  it('finishes on timed segments with huge and empty texts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(run, noise), { minLength: 1, maxLength: 50 }), (texts) =>
        finishes(
          texts.join(' '),
          texts.map((t, i) => ({
            speaker: `S${i % 3}`,
            start_ms: i * 1000,
            end_ms: i * 1000 + 500,
            text: t,
          })),
        ),
      ),
      { numRuns: Math.ceil(NUM_RUNS / 4), seed: SEED, endOnFailure: true },
    );
  }, 600_000);
});
