import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { NO_TRANSCRIBER_REASON } from '../../src/features/processing/providers/transcriber.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, useHarness } from '../helpers/harness.ts';
import { expectNoLeak } from '../helpers/openapi-check.ts';
import { wavFile } from '../recordings/audio-fixtures.ts';
import { eventsOf, tempDataDir, upload } from '../recordings/helpers.ts';
import { verboseJson } from './openai-server.ts';
import { providerSettings, useOpenAiServer } from './use-openai-server.ts';

const MAX_ATTEMPTS = 3;
/** Monday 23 November 2026: "by Friday" is the 27th. */
const CREATED_AT = '2026-11-23T09:00:00.000Z';

/** What a diarizing provider hears in the meeting. */
const DIARIZED = verboseJson([
  ['A', 0, 4.2, 'Welcome everyone, this is the launch planning meeting.'],
  ['A', 4.2, 9.8, 'We need to finalize the launch budget for the March release.'],
  ['B', 9.8, 15.5, 'The launch budget is already over plan because the trade show cost more than expected.'],
  ['C', 15.5, 21, 'Key point: the online launch event also reaches customers in other regions.'],
  ['B', 21, 26.4, "I'll send the revised budget spreadsheet to finance by Friday."],
]);

async function note(h: Harness, key: string, id: string) {
  return (await h.request('GET', `/v1/notes/${id}?include=segments`, { key })).body;
}

async function jobOf(h: Harness, noteId: string) {
  const jobs = await h.db.db.selectFrom('jobs').selectAll().execute();
  return jobs.find((j) => (JSON.parse(j.payload) as { note_id: string }).note_id === noteId)!;
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const server = useOpenAiServer();

    describe('with TRANSCRIBER=openai', () => {
      const h = useHarness(
        dialect,
        providerSettings(
          server,
          { transcribe: true },
          {
            DATA_DIR: tempDataDir(),
            TRANSCRIBE_API_KEY: 'sk-test-transcribe',
            TRANSCRIBE_MODEL: 'whisper-large-v3',
            TRANSCRIBE_TIMEOUT_MS: '5000',
            JOB_RETRY_BASE_SECONDS: '0',
            JOB_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
          },
        ),
      );

      beforeEach(async () => {
        await h.db.db.deleteFrom('jobs').execute();
        server.transcriptions.length = 0;
      });

      it('sends the stored audio as OpenAI multipart and builds the note from the diarized segments', async () => {
        server.onTranscription(() => ({ json: DIARIZED }));
        const t = await h.tenant();
        const wav = wavFile(2);
        const res = await upload(h, {
          key: t.liveKey,
          file: { bytes: wav, filename: 'launch.wav' },
          fields: [['created_at', CREATED_AT]],
        });
        expect(await runDueJobs(h.deps)).toBe(1);

        expect(server.transcriptions).toHaveLength(1);
        const sent = server.transcriptions[0]!;
        expect(sent.authorization).toBe('Bearer sk-test-transcribe');
        expect(sent.fields).toMatchObject({
          model: ['whisper-large-v3'],
          response_format: ['verbose_json'],
          'timestamp_granularities[]': ['segment'],
        });
        expect(sent.file).toEqual({
          filename: 'audio.wav',
          mimeType: 'audio/wav',
          size: wav.length,
          sha256: createHash('sha256').update(wav).digest('hex'),
        });

        const n = await note(h, t.liveKey, res.body.note_id);
        expect(n.status).toBe('ready');
        expect(n.segments).toEqual([
          { speaker: 'Speaker 1', start_ms: 0, end_ms: 4200, text: DIARIZED.segments[0]!.text.trim() },
          { speaker: 'Speaker 1', start_ms: 4200, end_ms: 9800, text: DIARIZED.segments[1]!.text.trim() },
          { speaker: 'Speaker 2', start_ms: 9800, end_ms: 15500, text: DIARIZED.segments[2]!.text.trim() },
          { speaker: 'Speaker 3', start_ms: 15500, end_ms: 21000, text: DIARIZED.segments[3]!.text.trim() },
          { speaker: 'Speaker 2', start_ms: 21000, end_ms: 26400, text: DIARIZED.segments[4]!.text.trim() },
        ]);
        expect(n.transcript.split('\n')[2]).toBe(`Speaker 2: ${DIARIZED.segments[2]!.text.trim()}`);
        expect(n.speakers).toEqual([
          { label: 'Speaker 1', name: 'Speaker 1' },
          { label: 'Speaker 2', name: 'Speaker 2' },
          { label: 'Speaker 3', name: 'Speaker 3' },
        ]);
        expect(n.summary).toMatch(/budget/);
        expect(n.action_items).toContainEqual(
          expect.objectContaining({
            text: 'Send the revised budget spreadsheet to finance by Friday',
            assignee: 'Speaker 2',
            due: '2026-11-27',
          }),
        );
        expect(n.highlights).toContainEqual(
          expect.objectContaining({ timestamp_ms: 15500, text: expect.stringMatching(/^Key point/) }),
        );
        // The duration measured from the audio stays; the recording is unchanged.
        expect(n.duration_seconds).toBe(2);

        const events = await eventsOf(h, t.accountId);
        expect(events.map((e) => e.type)).toEqual([
          'recording.ready',
          'note.created',
          ...n.action_items.map(() => 'action_item.created'),
          'note.processed',
        ]);
        const { segments: _segments, ...detail } = n;
        expect(events.at(-1)!.data).toEqual(detail);
      });

      it('uses the whole text as one segment when the provider gives no segments', async () => {
        server.onTranscription(() => ({ json: { text: 'We will ship the beta on Monday.', duration: 3.2 } }));
        const t = await h.tenant();
        const res = await upload(h, { key: t.liveKey, file: { bytes: wavFile(1) } });
        await runDueJobs(h.deps);
        const n = await note(h, t.liveKey, res.body.note_id);
        expect(n.status).toBe('ready');
        expect(n.segments).toEqual([
          { speaker: 'Speaker 1', start_ms: 0, end_ms: 3200, text: 'We will ship the beta on Monday.' },
        ]);
      });

      it('fails the note at once, with the provider’s reason, when it refuses the audio (4xx)', async () => {
        server.onTranscription(() => ({
          status: 401,
          json: { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error' } },
        }));
        const t = await h.tenant();
        const res = await upload(h, { key: t.liveKey, file: { bytes: wavFile(1) } });
        expect(await runDueJobs(h.deps)).toBe(1);
        expect(server.transcriptions).toHaveLength(1);
        const n = await note(h, t.liveKey, res.body.note_id);
        expect(n.status).toBe('failed');
        expect(n.failure_reason).toBe(
          'The transcription provider answered 401 Unauthorized: Incorrect API key provided.',
        );
        expect((await jobOf(h, res.body.note_id)).status).toBe('done');
        // note.failed tells subscribers, with the reason.
        const events = await eventsOf(h, t.accountId);
        expect(events.map((e) => e.type)).toEqual(['recording.ready', 'note.created', 'note.failed']);
        expect(events[2]!.data).toMatchObject({ id: res.body.note_id, failure_reason: n.failure_reason });
      });

      it('retries a provider that is briefly unavailable (503), then completes', async () => {
        server.onTranscription((_, i) =>
          i === 0 ? { status: 503, json: { error: { message: 'overloaded' } } } : { json: DIARIZED },
        );
        const t = await h.tenant();
        const res = await upload(h, { key: t.liveKey, file: { bytes: wavFile(1) } });
        expect(await runDueJobs(h.deps)).toBe(2);
        expect(server.transcriptions).toHaveLength(2);
        expect((await note(h, t.liveKey, res.body.note_id)).status).toBe('ready');
        expect(await jobOf(h, res.body.note_id)).toMatchObject({ status: 'done', attempts: 2 });
      });

      it('marks the note failed with the last reason after the last attempt', async () => {
        server.onTranscription(() => ({ status: 502, text: 'Bad gateway' }));
        const t = await h.tenant();
        const res = await upload(h, { key: t.liveKey, file: { bytes: wavFile(1) } });
        expect(await runDueJobs(h.deps)).toBe(MAX_ATTEMPTS);
        const n = await note(h, t.liveKey, res.body.note_id);
        expect(n.status).toBe('failed');
        expect(n.failure_reason).toBe('The transcription provider answered 502 Bad Gateway.');
        expect(await jobOf(h, res.body.note_id)).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS });
      });

      it('fails with a clear reason when the provider hears no speech, or answers nonsense', async () => {
        const t = await h.tenant();
        server.onTranscription(() => ({ json: { text: '', segments: [] } }));
        const silent = await upload(h, { key: t.liveKey, file: { bytes: wavFile(1) } });
        await runDueJobs(h.deps);
        expect((await note(h, t.liveKey, silent.body.note_id)).failure_reason).toBe(
          'No speech was recognised in the recording.',
        );
        server.onTranscription(() => ({ text: '<html>not json</html>' }));
        const garbled = await upload(h, { key: t.liveKey, file: { bytes: wavFile(1) } });
        await runDueJobs(h.deps);
        const n = await note(h, t.liveKey, garbled.body.note_id);
        expect(n.status).toBe('failed');
        expect(n.failure_reason).toMatch(/did not answer with JSON/);
        expectNoLeak(n.failure_reason);
      });

      it('does not transcribe again when the job runs again after the transcript was stored', async () => {
        server.onTranscription(() => ({ json: DIARIZED }));
        const t = await h.tenant();
        const res = await upload(h, { key: t.liveKey, file: { bytes: wavFile(1) } });
        await runDueJobs(h.deps);
        // As if the worker died after committing: the note goes back to processing and the job runs again.
        await h.db.db
          .updateTable('notes')
          .set({ status: 'processing' })
          .where('id', '=', res.body.note_id)
          .execute();
        await h.db.db
          .updateTable('jobs')
          .set({ status: 'queued', run_at: new Date(0).toISOString() })
          .where('id', '=', (await jobOf(h, res.body.note_id)).id)
          .execute();
        await runDueJobs(h.deps);
        expect(server.transcriptions).toHaveLength(1);
        const n = await note(h, t.liveKey, res.body.note_id);
        expect(n.status).toBe('ready');
        expect(n.segments).toHaveLength(DIARIZED.segments.length);
      });
    });

    describe('without a transcriber (TRANSCRIBER=none, the default)', () => {
      const h = useHarness(dialect, { DATA_DIR: tempDataDir(), JOB_RETRY_BASE_SECONDS: '0' });

      it('stores the audio, fails its note with a clear reason, and still processes transcripts', async () => {
        const t = await h.tenant();
        const wav = wavFile(1);
        const audio = await upload(h, { key: t.liveKey, file: { bytes: wav } });
        const text = await h.request('POST', '/v1/recordings', {
          key: t.liveKey,
          body: { transcript: 'Ana: We ship the beta on Monday.' },
        });
        expect(await runDueJobs(h.deps)).toBe(2);

        const failed = await note(h, t.liveKey, audio.body.note_id);
        expect(failed).toMatchObject({ status: 'failed', failure_reason: NO_TRANSCRIBER_REASON });
        expect(NO_TRANSCRIBER_REASON).toMatch(/TRANSCRIBER=openai/);
        expect((await jobOf(h, audio.body.note_id)).status).toBe('done');
        const download = await h.app.request(`/v1/recordings/${audio.body.recording_id}/audio`, {
          headers: { authorization: `Bearer ${t.liveKey}` },
        });
        expect(Buffer.from(await download.arrayBuffer()).equals(wav)).toBe(true);

        expect((await note(h, t.liveKey, text.body.note_id)).status).toBe('ready');
      });
    });
  });
}
