import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { checkResponseAgainstOpenApi } from '../helpers/openapi-check.ts';
import { flacFile, mp3File, oggOpusFile, wavFile } from './audio-fixtures.ts';
import { eventsOf, filesUnder, tempDataDir, upload } from './helpers.ts';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const CREATED_AT = '2026-11-23T09:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const dataDir = tempDataDir();
    // The repository's builtin-embedder cache: building a fresh one in dataDir takes 10–40 s on a busy machine.
    const h = useHarness(dialect, {
      DATA_DIR: dataDir,
      MODELS_DIR: path.resolve('data/models'),
      JOB_RETRY_BASE_SECONDS: '0',
    });

    beforeEach(async () => {
      await h.db.db.deleteFrom('jobs').execute();
    });

    describe('POST /v1/recordings (multipart audio)', () => {
      it('stores a WAV upload, measures its duration and answers 202 with the ids', async () => {
        const t = await h.tenant();
        const wav = wavFile(2.4);
        const res = await upload(h, {
          key: t.liveKey,
          file: { bytes: wav, filename: 'Weekly sync.wav', type: 'audio/wav' },
          fields: [
            ['created_at', '2026-11-23T10:00:00+01:00'],
            ['tags', 'weekly'],
            ['tags', 'Product'],
          ],
        });
        expect(res.status).toBe(202);
        expect(res.body).toEqual({
          recording_id: expect.stringMatching(/^rec_[0-9A-Za-z]{24}$/),
          note_id: expect.stringMatching(/^note_[0-9A-Za-z]{24}$/),
          status: 'processing',
        });
        const { recording_id, note_id } = res.body;

        const recording = await h.request('GET', `/v1/recordings/${recording_id}`, { key: t.liveKey });
        expect(recording.status).toBe(200);
        expect(recording.body).toEqual({
          id: recording_id,
          note_id,
          content_type: 'audio/wav',
          size_bytes: wav.length,
          duration_seconds: 2,
          created_at: CREATED_AT,
        });

        const note = await h.request('GET', `/v1/notes/${note_id}`, { key: t.liveKey });
        expect(note.body).toMatchObject({
          id: note_id,
          recording_id,
          status: 'processing',
          title: 'Weekly sync',
          tags: ['weekly', 'Product'],
          duration_seconds: 2,
          created_at: CREATED_AT,
          transcript: '',
        });

        // The file is stored whole under DATA_DIR/audio, and no temp file is left behind.
        const stored = filesUnder(path.join(dataDir, 'audio')).filter((f) => f.includes(recording_id));
        expect(stored).toEqual([`live/${t.accountId}/${recording_id}.wav`]);
        expect(sha256(fs.readFileSync(path.join(dataDir, 'audio', stored[0]!)))).toBe(sha256(wav));
        expect(filesUnder(path.join(dataDir, 'tmp'))).toEqual([]);
      });

      it('writes recording.ready then note.created in the outbox, with the API shapes', async () => {
        const t = await h.tenant();
        const res = await upload(h, {
          key: t.liveKey,
          file: { bytes: wavFile(1.2), filename: 'standup.wav' },
          fields: [['title', 'Standup']],
        });
        const events = await eventsOf(h, t.accountId);
        expect(events.map((e) => e.type)).toEqual(['recording.ready', 'note.created']);
        const recording = await h.request('GET', `/v1/recordings/${res.body.recording_id}`, {
          key: t.liveKey,
        });
        expect(events[0]!.data).toEqual(recording.body);
        expect(events[1]!.data).toMatchObject({
          id: res.body.note_id,
          title: 'Standup',
          recording_id: res.body.recording_id,
          summary: '',
          highlights: 0,
        });
        for (const e of events) {
          expect(e.id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
          expect(e.created_at).toMatch(/Z$/);
        }
      });

      it.each([
        ['mp3', mp3File(3), 'audio/mpeg', 3],
        ['flac', flacFile(2.2), 'audio/flac', 2],
        ['ogg', oggOpusFile(4), 'audio/ogg', 4],
      ] as const)(
        'recognises %s from its bytes, whatever the declared type',
        async (ext, bytes, type, seconds) => {
          const t = await h.tenant();
          const res = await upload(h, {
            key: t.liveKey,
            file: { bytes, filename: `clip.${ext}`, type: 'application/octet-stream' },
          });
          expect(res.status, res.text).toBe(202);
          const recording = await h.request('GET', `/v1/recordings/${res.body.recording_id}`, {
            key: t.liveKey,
          });
          expect(recording.body).toMatchObject({
            content_type: type,
            size_bytes: bytes.length,
            duration_seconds: seconds,
          });
        },
      );

      it('gives a note without title the file name, or the date when the name says nothing', async () => {
        const t = await h.tenant();
        const named = await upload(h, {
          key: t.liveKey,
          file: { bytes: wavFile(1), filename: 'roadmap-review.wav' },
        });
        const unnamed = await upload(h, {
          key: t.liveKey,
          file: { bytes: wavFile(1), filename: '20261123.wav' },
          fields: [['created_at', CREATED_AT]],
        });
        const title = async (id: string) =>
          (await h.request('GET', `/v1/notes/${id}`, { key: t.liveKey })).body.title;
        expect(await title(named.body.note_id)).toBe('roadmap-review');
        expect(await title(unnamed.body.note_id)).toBe('Recording of 23 Nov 2026, 09:00 UTC');
      });

      it('accepts tags as one JSON array field', async () => {
        const t = await h.tenant();
        const res = await upload(h, {
          key: t.liveKey,
          file: { bytes: wavFile(1) },
          fields: [['tags', '["alpha","Beta","alpha"]']],
        });
        const note = await h.request('GET', `/v1/notes/${res.body.note_id}`, { key: t.liveKey });
        expect(note.body.tags).toEqual(['alpha', 'Beta']);
      });

      it('keeps test-mode uploads in the test data space', async () => {
        const t = await h.tenant();
        const res = await upload(h, { key: t.testKey, file: { bytes: wavFile(1) } });
        expect(res.status).toBe(202);
        expect(
          (await h.request('GET', `/v1/recordings/${res.body.recording_id}`, { key: t.testKey })).status,
        ).toBe(200);
        expect(
          (await h.request('GET', `/v1/recordings/${res.body.recording_id}`, { key: t.liveKey })).status,
        ).toBe(404);
        expect(filesUnder(path.join(dataDir, 'audio', 'test', t.accountId))).toHaveLength(1);
      });
    });

    describe('POST /v1/recordings (JSON transcript)', () => {
      it('creates recording and note, emits the four events in order once processed', async () => {
        const t = await h.tenant();
        const transcript = [
          'Alice: Welcome, this is the launch review.',
          'Alice: The launch budget is over plan because the venue cost more.',
          "Bob: I'll send the revised budget to finance by Friday.",
        ].join('\n');
        const res = await h.request('POST', '/v1/recordings', {
          key: t.liveKey,
          body: { transcript, created_at: CREATED_AT, speakers: [{ label: 'Bob', name: 'Bob Smith' }] },
        });
        expect(res.status).toBe(202);
        const recording = await h.request('GET', `/v1/recordings/${res.body.recording_id}`, {
          key: t.liveKey,
        });
        expect(recording.body).toEqual({
          id: res.body.recording_id,
          note_id: res.body.note_id,
          content_type: 'text/plain',
          size_bytes: Buffer.byteLength(transcript),
          duration_seconds: expect.any(Number),
          created_at: CREATED_AT,
        });
        const audio = await h.request('GET', `/v1/recordings/${res.body.recording_id}/audio`, {
          key: t.liveKey,
        });
        expect(audio.status).toBe(404);
        expect(audio.body.error.message).toMatch(/no audio: it was created from a transcript/);

        expect(await runDueJobs(h.deps)).toBe(1);
        const note = await h.request('GET', `/v1/notes/${res.body.note_id}`, { key: t.liveKey });
        expect(note.body).toMatchObject({ status: 'ready', recording_id: res.body.recording_id });
        expect(note.body.action_items).toEqual([
          expect.objectContaining({ assignee: 'Bob Smith', due: '2026-11-27' }),
        ]);
        const events = await eventsOf(h, t.accountId);
        expect(events.map((e) => e.type)).toEqual([
          'recording.ready',
          'note.created',
          'action_item.created',
          'note.processed',
        ]);
        expect(events[3]!.data).toEqual(note.body);
      });

      it('names WebVTT and SRT transcripts by their format', async () => {
        const t = await h.tenant();
        const vtt = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ana>We ship on Monday.\n';
        const srt = '1\n00:00:01,000 --> 00:00:04,000\nAna: We ship on Monday.\n';
        for (const [transcript, type] of [
          [vtt, 'text/vtt'],
          [srt, 'application/x-subrip'],
        ]) {
          const res = await h.request('POST', '/v1/recordings', { key: t.liveKey, body: { transcript } });
          const rec = await h.request('GET', `/v1/recordings/${res.body.recording_id}`, { key: t.liveKey });
          expect(rec.body.content_type).toBe(type);
          expect(rec.body.duration_seconds).toBe(4);
        }
        const segments = await h.request('POST', '/v1/recordings', {
          key: t.liveKey,
          body: { segments: [{ speaker: 'A', start_ms: 0, end_ms: 61_500, text: 'Hello there.' }] },
        });
        const rec = await h.request('GET', `/v1/recordings/${segments.body.recording_id}`, {
          key: t.liveKey,
        });
        expect(rec.body).toMatchObject({ content_type: 'application/json', duration_seconds: 62 });
      });
    });

    describe('GET /v1/recordings', () => {
      it('pages newest first with the total, and filters by from/to', async () => {
        const t = await h.tenant();
        const ids: string[] = [];
        for (const day of ['2026-01-01', '2026-01-02', '2026-01-03']) {
          const res = await h.request('POST', '/v1/recordings', {
            key: t.liveKey,
            body: { transcript: `Alice: Notes of ${day}.`, created_at: `${day}T12:00:00Z` },
          });
          ids.push(res.body.recording_id);
        }
        const page1 = await h.request('GET', '/v1/recordings?per_page=2', { key: t.liveKey });
        expect(page1.body.meta).toEqual({ page: 1, per_page: 2, total: 3 });
        expect(page1.body.data.map((r: any) => r.id)).toEqual([ids[2], ids[1]]);
        const page2 = await h.request('GET', '/v1/recordings?per_page=2&page=2', { key: t.liveKey });
        expect(page2.body.data.map((r: any) => r.id)).toEqual([ids[0]]);
        const past = await h.request('GET', '/v1/recordings?page=9', { key: t.liveKey });
        expect(past.body).toEqual({ data: [], meta: { page: 9, per_page: 20, total: 3 } });
        const day2 = await h.request('GET', '/v1/recordings?from=2026-01-02&to=2026-01-02', {
          key: t.liveKey,
        });
        expect(day2.body.data.map((r: any) => r.id)).toEqual([ids[1]]);
        // Another tenant sees none of them.
        const other = await h.tenant();
        expect((await h.request('GET', '/v1/recordings', { key: other.liveKey })).body.meta.total).toBe(0);
      });
    });

    describe('GET /v1/recordings/:id/audio', () => {
      async function stored() {
        const t = await h.tenant();
        const bytes = wavFile(1.5);
        const res = await upload(h, { key: t.liveKey, file: { bytes, filename: 'a.wav' } });
        return { t, bytes, url: `/v1/recordings/${res.body.recording_id}/audio`, id: res.body.recording_id };
      }
      async function get(url: string, key: string, headers: Record<string, string> = {}, method = 'GET') {
        const res = await h.app.request(url, {
          method,
          headers: { authorization: `Bearer ${key}`, ...headers },
        });
        const body = Buffer.from(await res.arrayBuffer());
        const json = (res.headers.get('content-type') ?? '').includes('json')
          ? JSON.parse(body.toString())
          : body;
        await checkResponseAgainstOpenApi(h.app, { method, path: url, status: res.status, body: json });
        return { res, body, json };
      }

      it('streams the whole file with its type, length, ETag and Accept-Ranges', async () => {
        const { t, bytes, url, id } = await stored();
        const { res, body } = await get(url, t.liveKey);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('audio/wav');
        expect(res.headers.get('content-length')).toBe(String(bytes.length));
        expect(res.headers.get('accept-ranges')).toBe('bytes');
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('etag')).toBe(`"${id}-${bytes.length}"`);
        expect(res.headers.get('content-disposition')).toBe(`inline; filename="${id}.wav"`);
        expect(body.equals(bytes)).toBe(true);
      });

      it('answers a byte range with 206 and Content-Range (start-end, open end, suffix)', async () => {
        const { t, bytes, url } = await stored();
        const n = bytes.length;
        for (const [range, start, end] of [
          ['bytes=0-99', 0, 99],
          ['bytes=100-', 100, n - 1],
          ['bytes=-10', n - 10, n - 1],
          [`bytes=${n - 5}-${n + 1000}`, n - 5, n - 1],
        ] as const) {
          const { res, body } = await get(url, t.liveKey, { range });
          expect(res.status, range).toBe(206);
          expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${n}`);
          expect(res.headers.get('content-length')).toBe(String(end - start + 1));
          expect(body.equals(bytes.subarray(start, end + 1)), range).toBe(true);
        }
      });

      it('416 with Content-Range bytes */size when the range starts past the end', async () => {
        const { t, bytes, url } = await stored();
        for (const range of [`bytes=${bytes.length}-`, 'bytes=-0']) {
          const { res, json } = await get(url, t.liveKey, { range });
          expect(res.status).toBe(416);
          expect(res.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
          expect(json.error).toMatchObject({ code: 'range_not_satisfiable', param: 'Range' });
          expect(json.error.request_id).toBe(res.headers.get('request-id'));
        }
      });

      it('sends the whole file for a malformed or multi-range header, or an If-Range of another version', async () => {
        const { t, bytes, url } = await stored();
        for (const headers of [
          { range: 'bytes=abc' },
          { range: 'items=0-10' },
          { range: 'bytes=0-1,5-9' },
          { range: 'bytes=0-9', 'if-range': '"rec_other-1"' },
        ] as Record<string, string>[]) {
          const { res, body } = await get(url, t.liveKey, headers);
          expect(res.status, JSON.stringify(headers)).toBe(200);
          expect(body.length).toBe(bytes.length);
        }
        const etag = (await get(url, t.liveKey)).res.headers.get('etag')!;
        expect((await get(url, t.liveKey, { range: 'bytes=0-9', 'if-range': etag })).res.status).toBe(206);
      });

      it('answers HEAD with the headers only', async () => {
        const { t, bytes, url } = await stored();
        const res = await h.app.request(url, {
          method: 'HEAD',
          headers: { authorization: `Bearer ${t.liveKey}` },
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-length')).toBe(String(bytes.length));
        expect((await res.arrayBuffer()).byteLength).toBe(0);
      });
    });
  });
}
