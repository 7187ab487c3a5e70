import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { renderTranscript } from '../../src/features/notes/notes.view.ts';
import { provisionalTitle } from '../../src/features/notes/provisional-title.ts';
import { parseTranscript } from '../../src/features/processing/parse-transcript.ts';
import { createProcessingPool } from '../../src/features/processing/pool/processing-pool.ts';
import { prepareTranscript, segmentAt } from '../../src/features/processing/prepared-transcript.ts';

/**
 * A transcript is parsed and packed into columns in a processing thread, so the request's thread never builds
 * (or receives) one object per segment; the packed form must stand for exactly the segments it came from.
 */

const pool = createProcessingPool({ threads: 1 });
afterAll(() => pool.close());
const parseJsonOffThread = (bytes: Uint8Array) => pool.parseJson(bytes);

const segmentArb = fc.record({
  speaker: fc.string({ minLength: 1, maxLength: 12 }),
  start_ms: fc.nat(1_000_000),
  end_ms: fc.nat(1_000_000),
  text: fc.string({ unit: 'grapheme', maxLength: 40 }),
});

describe('prepared transcripts', () => {
  it('hold every segment in order, the distinct labels, the rendering, the title and the duration', () => {
    fc.assert(
      fc.property(fc.array(segmentArb, { maxLength: 60 }), (segments) => {
        const p = prepareTranscript(segments);
        expect(p.count).toBe(segments.length);
        expect(Array.from({ length: p.count }, (_, i) => segmentAt(p, i))).toEqual(segments);
        expect(p.labels).toEqual([...new Set(segments.map((s) => s.speaker))]);
        expect(p.rendered).toBe(renderTranscript(segments));
        expect(p.title).toBe(provisionalTitle(segments));
        expect(p.durationMs).toBe(Math.max(0, ...segments.map((s) => s.end_ms)));
      }),
    );
  });

  it('are the same prepared in a thread as in place, for a transcript of 400,000 one-word turns', async () => {
    const transcript = Array.from({ length: 400_000 }, (_, i) => `S${i % 7}: w${i}`).join('\n');
    const inThread = await pool.prepareTranscript(transcript);
    const inPlace = prepareTranscript(parseTranscript(transcript));
    expect(inThread.count).toBe(400_000);
    expect(inThread.labels).toEqual(inPlace.labels);
    expect(inThread.texts).toBe(inPlace.texts);
    expect(Array.from(inThread.textEnds)).toEqual(Array.from(inPlace.textEnds));
    expect(Array.from(inThread.speaker)).toEqual(Array.from(inPlace.speaker));
    expect(Array.from(inThread.startMs)).toEqual(Array.from(inPlace.startMs));
    expect(inThread.rendered).toBe(inPlace.rendered);
    expect(inThread.durationMs).toBe(inPlace.durationMs);
    expect(segmentAt(inThread, 399_999)).toEqual(segmentAt(inPlace, 399_999));
  });
});

describe('JSON bodies read in a thread', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  it('give the object, with lone surrogates repaired and the repair reported', async () => {
    const long = 'x'.repeat(100_000);
    await expect(parseJsonOffThread(bytes(`{"a": "${long}", "b": ["\\ud800"]}`))).resolves.toEqual({
      value: { a: long, b: ['\uFFFD'] },
      repaired: true,
    });
    await expect(parseJsonOffThread(bytes('  '))).resolves.toEqual({ value: {}, repaired: false });
  });

  it('refuse what the API refuses, with the same errors', async () => {
    await expect(parseJsonOffThread(bytes('{"a": '))).rejects.toMatchObject({ code: 'body_invalid_json' });
    await expect(parseJsonOffThread(bytes('[1]'))).rejects.toMatchObject({ code: 'parameter_invalid' });
    await expect(parseJsonOffThread(bytes('{"a": {"b": "\\u0000"}}'))).rejects.toMatchObject({
      code: 'parameter_invalid',
      details: { param: 'a.b' },
    });
  });
});
