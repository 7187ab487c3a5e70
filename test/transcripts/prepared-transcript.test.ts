import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import { noteDetailJson, toNoteDetail } from '../../src/features/notes/notes.view.ts';
import { createProcessingPool } from '../../src/features/processing/pool/processing-pool.ts';
import { findRecordingByContent } from '../../src/features/recordings/recordings.service.ts';
import { parseTranscript } from '../../src/features/transcripts/parse-transcript.ts';
import {
  prepareTranscript,
  prepareTranscriptText,
  segmentAt,
} from '../../src/features/transcripts/prepared-transcript.ts';
import { provisionalTitle } from '../../src/features/transcripts/provisional-title.ts';
import { renderTranscript } from '../../src/features/transcripts/render-transcript.ts';
import { prepareInput } from '../../src/features/transcripts/store-transcript.ts';
import { requestFingerprint } from '../../src/lib/request-fingerprint.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';

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

describe('the answer that echoes a prepared transcript', () => {
  const detailOf = (fields: { transcript: string; title: string; tags: string[]; recording?: string }) =>
    toNoteDetail(
      {
        id: 'note_1',
        account_id: 'acct_1',
        mode: 'live',
        recording_id: fields.recording ?? null,
        status: 'processing',
        failure_reason: null,
        title: fields.title,
        title_locked: 0,
        summary: '',
        transcript: fields.transcript,
        duration_seconds: 12,
        tags: JSON.stringify(fields.tags),
        created_at: '2026-11-25T00:00:00.000Z',
        updated_at: '2026-11-25T00:00:00.000Z',
      },
      { segments: [], speakers: [{ label: 'S1', name: 'Ann "A" \\ Lee' }], highlights: [], actionItems: [] },
      false,
    );

  it('is byte for byte what JSON.stringify makes of the detail, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.string({ unit: 'grapheme', maxLength: 30 }),
        fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
        fc.boolean(),
        (text, title, tags, recording) => {
          // What a processing thread makes of a transcript text (control characters, quotes, emoji, …).
          const prepared = prepareTranscriptText(`S1: x ${text}`, 'echoed');
          const detail = detailOf({
            transcript: prepared.rendered,
            title,
            tags,
            ...(recording ? { recording: 'rec_1' } : {}),
          });
          const bytes = noteDetailJson(detail, prepared);
          expect(Buffer.from(bytes).toString('utf8')).toBe(JSON.stringify(detail));
          expect(noteDetailJson(detail)).toEqual(bytes);
          // Another transcript's literal is never spliced in.
          const other = { ...detail, transcript: `${detail.transcript}.` };
          expect(Buffer.from(noteDetailJson(other, prepared)).toString('utf8')).toBe(JSON.stringify(other));
        },
      ),
    );
  });

  it('is made in the thread that reads a large body whose answer echoes it, and only there', async () => {
    const transcript = Array.from({ length: 3_000 }, (_, i) => `S${i % 3}: “quoted” \\ line ${i} 🎉`).join(
      '\n',
    );
    const bytes = new TextEncoder().encode(JSON.stringify({ transcript }));
    const body = await pool.parseJson(bytes, { transcript: { limit: 2_097_152, use: 'echoed' } });
    const json = body.prepared?.renderedJson;
    expect(json).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(json!).toString('utf8')).toBe(JSON.stringify(body.prepared?.rendered));
    expect(body.prepared?.source).toBeUndefined();
    // A body that makes a recording gets the text's size and hash instead.
    const recorded = await pool.parseJson(bytes, { transcript: { limit: 2_097_152, use: 'recorded' } });
    expect(recorded.prepared?.renderedJson).toBeUndefined();
    expect(recorded.prepared?.source).toEqual({
      bytes: Buffer.byteLength(transcript),
      sha256: createHash('sha256').update(transcript).digest('hex'),
    });
    // The small-body path (prepared on this thread, or in a thread for the pipeline) makes neither.
    const inPlace = await pool.prepareTranscript(transcript);
    expect(inPlace.renderedJson).toBeUndefined();
    expect(inPlace.source).toBeUndefined();
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

  it('give the Idempotency-Key fingerprint taken in place, when asked (and none otherwise)', async () => {
    const text = `{"title": "Plan", "transcript": "${'a b '.repeat(20_000)}", "b": "\\ud800"}`;
    const body = await pool.parseJson(bytes(text), { fingerprintOf: 'POST /v1/notes' });
    // What the Idempotency-Key middleware computes on the request's thread for a small body.
    expect(body.fingerprint).toBe(requestFingerprint('POST /v1/notes', JSON.stringify(body.value)));
    expect(body.value.b).toBe('\uFFFD');
    expect((await pool.parseJson(bytes(text))).fingerprint).toBeUndefined();
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

describe('a large body with a transcript', () => {
  const transcript = Array.from({ length: 3_000 }, (_, i) => `S${i % 3}: point number ${i} of the plan`).join(
    '\n',
  );
  const bytes = new TextEncoder().encode(JSON.stringify({ title: 'Plan', transcript }));

  it('has the transcript prepared in the same trip, as it would be in place', async () => {
    const body = await pool.parseJson(bytes, { transcript: { limit: 2_097_152, use: 'echoed' } });
    expect(body.value.transcript).toBe(transcript);
    const inPlace = prepareTranscript(parseTranscript(transcript));
    expect(body.prepared?.rendered).toBe(inPlace.rendered);
    expect(body.prepared?.labels).toEqual(['S0', 'S1', 'S2']);
    expect(segmentAt(body.prepared!, 2_999)).toEqual(segmentAt(inPlace, 2_999));
  });

  it('is not prepared over the limit, without a limit, or when the transcript has no text (the service answers)', async () => {
    expect(
      (await pool.parseJson(bytes, { transcript: { limit: 1_000, use: 'echoed' } })).prepared,
    ).toBeUndefined();
    expect((await pool.parseJson(bytes)).prepared).toBeUndefined();
    const blank = new TextEncoder().encode(JSON.stringify({ transcript: ' '.repeat(70_000) }));
    expect(
      (await pool.parseJson(blank, { transcript: { limit: 2_097_152, use: 'echoed' } })).prepared,
    ).toBeUndefined();
  });

  it('is used by the service only for that very text', async () => {
    const deps = { config: { maxTranscriptBytes: 2_097_152 }, processing: pool } as unknown as Deps;
    const early = { source: transcript, prepared: prepareTranscript(parseTranscript(transcript)) };
    expect(await prepareInput(deps, { transcript }, early)).toBe(early.prepared);
    const other = `${transcript}\nS4: one more`;
    const fresh = await prepareInput(deps, { transcript: other }, early);
    expect(fresh).not.toBe(early.prepared);
    expect(fresh.labels).toContain('S4');
    await expect(
      prepareInput({ ...deps, config: { maxTranscriptBytes: 10 } } as Deps, { transcript }, early),
    ).rejects.toMatchObject({
      code: 'payload_too_large',
    });
  });
});

for (const dialect of DIALECTS) {
  describe(`${dialect}: POST /v1/notes with a transcript over 64 KiB`, () => {
    const h = useHarness(dialect);

    it('stores the segments and speakers prepared with the body', async () => {
      const t = await h.tenant();
      const transcript = Array.from(
        { length: 3_000 },
        (_, i) => `S${i % 3}: point number ${i} of the plan`,
      ).join('\n');
      const res = await h.request('POST', '/v1/notes', { key: t.liveKey, body: { transcript } });
      expect(res.status).toBe(202);
      expect(res.body.title).toBe('point number 0 of the plan point number 1 of');
      const got = await h.request('GET', `/v1/notes/${res.body.id}?include=segments`, { key: t.liveKey });
      expect(got.body.segments).toHaveLength(3_000);
      expect(got.body.segments[2_999]).toMatchObject({
        speaker: 'S2',
        text: 'point number 2999 of the plan',
      });
      expect(got.body.speakers.map((s: { label: string }) => s.label)).toEqual(['S0', 'S1', 'S2']);
      expect(got.body.transcript).toBe(res.body.transcript);
    });

    it('answers 202 with the note as stored, and replays that answer for the Idempotency-Key', async () => {
      const t = await h.tenant();
      const transcript = Array.from({ length: 3_000 }, (_, i) => `S${i % 2}: “point” \\ ${i} 🎉\t"x"`).join(
        '\n',
      );
      const body = { transcript, tags: ['plan'], speakers: [{ label: 'S1', name: 'Bo "B"' }] };
      const headers = { 'idempotency-key': 'large-body-answer' };
      const res = await h.request('POST', '/v1/notes', { key: t.liveKey, body, headers });
      expect(res.status).toBe(202);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const got = await h.request('GET', `/v1/notes/${res.body.id}`, { key: t.liveKey });
      // Built from what was written, not read back: byte for byte the note as stored (no worker runs here).
      expect(got.body.status).toBe('processing');
      expect(res.text).toBe(got.text);
      expect(res.body.speakers).toEqual([
        { label: 'S0', name: 'S0' },
        { label: 'S1', name: 'Bo "B"' },
      ]);
      const replay = await h.request('POST', '/v1/notes', { key: t.liveKey, body, headers });
      expect(replay.status).toBe(202);
      expect(replay.text).toBe(res.text);
    });

    it('records a transcript recording with the size and SHA-256 of the text, taken in the thread', async () => {
      const t = await h.tenant();
      const transcript = Array.from({ length: 3_000 }, (_, i) => `S${i % 2}: “point” ${i} 🎉`).join('\n');
      const res = await h.request('POST', '/v1/recordings', { key: t.liveKey, body: { transcript } });
      expect(res.status).toBe(202);
      const got = await h.request('GET', `/v1/recordings/${res.body.recording_id}`, { key: t.liveKey });
      expect(got.body.size_bytes).toBe(Buffer.byteLength(transcript));
      const actor = { accountId: t.accountId, mode: 'live' as const, scopes: new Set<never>(), keyId: 'k' };
      const sha256 = createHash('sha256').update(transcript).digest('hex');
      expect(await findRecordingByContent(h.deps, actor, sha256)).toMatchObject({
        id: res.body.recording_id,
      });
    });
  });
}
