import { beforeEach, describe, expect, it } from 'vitest';
import { transcriptLanguage } from '../../src/features/processing/detect-language.ts';
import { forgetProviderFacts } from '../../src/features/processing/providers/structured-chat.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { wavFile } from '../recordings/audio-fixtures.ts';
import { tempDataDir, upload } from '../recordings/helpers.ts';
import { fakeModel } from './fake-model.ts';
import { verboseJson } from './openai-server.ts';
import { providerSettings, useOpenAiServer } from './use-openai-server.ts';

const CREATED_AT = '2026-11-23T09:00:00.000Z';
const GERMAN = [
  'Willkommen zur Planung der Produkteinführung, heute sprechen wir über das Budget und den Zeitplan.',
  'Das Budget für die Einführung liegt über dem Plan, weil der Veranstaltungsort mehr gekostet hat.',
  'Wir verlegen die Veranstaltung deshalb ins Internet und sparen damit die Kosten für die Reise.',
  'Ich schicke der Finanzabteilung bis Freitag das überarbeitete Budget, damit sie es prüfen kann.',
].map((text, i) => ({ speaker: i % 2 ? 'S2' : 'S1', start_ms: i * 6000, end_ms: i * 6000 + 5000, text }));
const ENGLISH = [
  'Welcome to the launch planning meeting, today we talk about the budget and the schedule.',
  'The launch budget is over plan because the venue cost more than we expected it to.',
  "I'll send the revised budget to finance by Friday so that they can review it.",
].map((text, i) => ({ speaker: i % 2 ? 'S2' : 'S1', start_ms: i * 6000, end_ms: i * 6000 + 5000, text }));

describe('transcriptLanguage', () => {
  it('takes the language given, else detects it, and calls short text English', () => {
    expect(transcriptLanguage(ENGLISH, 'de-CH')).toEqual({
      english: false,
      name: 'Swiss High German',
      detected: false,
    });
    expect(transcriptLanguage(GERMAN, 'en-GB')).toEqual({ english: true });
    expect(transcriptLanguage(GERMAN, undefined)).toEqual({ english: false, name: 'German', detected: true });
    expect(transcriptLanguage(ENGLISH, undefined)).toEqual({ english: true });
    expect(transcriptLanguage([{ text: 'Hallo zusammen.' }], undefined)).toEqual({ english: true });
  });
});

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    describe('with the builtin analyzer', () => {
      const h = useHarness(dialect, {});
      beforeEach(async () => {
        await h.db.db.deleteFrom('jobs').execute();
      });

      it('keeps the language given, in canonical form, on the note', async () => {
        const t = await h.tenant();
        const res = await h.request('POST', '/v1/notes', {
          key: t.liveKey,
          body: { segments: ENGLISH, language: 'EN-gb', created_at: CREATED_AT },
        });
        expect(res.status).toBe(202);
        await runDueJobs(h.deps);
        const note = (await h.request('GET', `/v1/notes/${res.body.id}`, { key: t.liveKey })).body;
        expect(note).toMatchObject({ status: 'ready', language: 'en-GB' });
        expect(note.analysis_notes).toBeUndefined();
        expect(note.action_items.length).toBeGreaterThan(0);
      });

      it.each([['english please'], ['x'.repeat(40)], [42], ['']])(
        'refuses language %j with a 400',
        async (bad) => {
          const t = await h.tenant();
          const res = await h.request('POST', '/v1/notes', {
            key: t.liveKey,
            body: { segments: ENGLISH, language: bad },
          });
          expect(res.status).toBe(400);
          expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param: 'language' });
        },
      );

      it('writes a title and extractive summary, no action items, and says why, for a note in German', async () => {
        const t = await h.tenant();
        const res = await h.request('POST', '/v1/notes', {
          key: t.liveKey,
          body: { segments: GERMAN, created_at: CREATED_AT },
        });
        await runDueJobs(h.deps);
        const note = (await h.request('GET', `/v1/notes/${res.body.id}`, { key: t.liveKey })).body;
        expect(note.status).toBe('ready');
        expect(note.action_items).toEqual([]);
        expect(note.highlights).toEqual([]);
        expect(note.title.length).toBeGreaterThan(0);
        // Extractive: every summary sentence is a sentence of the transcript.
        for (const sentence of note.summary.split(/(?<=\.)\s+/))
          expect(GERMAN.some((s) => s.text.includes(sentence.replace(/…$/, '')))).toBe(true);
        expect(note.analysis_notes).toMatch(
          /^This note is in German \(detected\), and the builtin analyzer writes English only/,
        );
      });

      it('keeps the language of a recording posted as a transcript, on the recording and its note', async () => {
        const t = await h.tenant();
        const res = await h.request('POST', '/v1/recordings', {
          key: t.liveKey,
          body: { segments: GERMAN, language: 'de' },
        });
        expect(res.status).toBe(202);
        const recording = (
          await h.request('GET', `/v1/recordings/${res.body.recording_id}`, { key: t.liveKey })
        ).body;
        expect(recording.language).toBe('de');
        await runDueJobs(h.deps);
        const note = (await h.request('GET', `/v1/notes/${res.body.note_id}`, { key: t.liveKey })).body;
        expect(note.language).toBe('de');
        expect(note.analysis_notes).toMatch(/^This note is in German \(as given\)/);
      });
    });

    describe('with a transcriber and a language model', () => {
      const server = useOpenAiServer();
      const h = useHarness(
        dialect,
        providerSettings(
          server,
          { transcribe: true, analyze: true },
          { DATA_DIR: tempDataDir(), ANALYZE_TIMEOUT_MS: '5000', JOB_RETRY_BASE_SECONDS: '0' },
        ),
      );
      beforeEach(async () => {
        await h.db.db.deleteFrom('jobs').execute();
        server.chats.length = 0;
        server.transcriptions.length = 0;
        forgetProviderFacts();
      });

      it('tells the transcriber the language (ISO 639-1) and the model to write in it', async () => {
        server.onTranscription(() => ({ json: verboseJson([['A', 0, 4, GERMAN[0]!.text]]) }));
        server.onChat(fakeModel({ contextTokens: 8192, overflow: 'llamacpp' }));
        const t = await h.tenant();
        const res = await upload(h, {
          key: t.liveKey,
          file: { bytes: wavFile(1), filename: 'planung.wav' },
          fields: [['language', 'de-CH']],
        });
        expect(res.status).toBe(202);
        await runDueJobs(h.deps);
        expect(server.transcriptions[0]!.fields.language).toEqual(['de']);
        const system = server.chats[0]!.body.messages[0].content as string;
        expect(system).toContain('in the language with BCP 47 tag "de-CH"');
        const note = (await h.request('GET', `/v1/notes/${res.body.note_id}`, { key: t.liveKey })).body;
        expect(note).toMatchObject({ status: 'ready', language: 'de-CH' });
        expect(note.analysis_notes).toBeUndefined();
      });

      it('asks the model for the language the meeting was held in when none was given', async () => {
        server.onChat(fakeModel({ contextTokens: 8192, overflow: 'llamacpp' }));
        const t = await h.tenant();
        await h.request('POST', '/v1/notes', { key: t.liveKey, body: { segments: GERMAN } });
        await runDueJobs(h.deps);
        expect(server.chats[0]!.body.messages[0].content).toContain(
          'in the language the meeting was held in',
        );
      });

      it('refuses a bad language on an audio upload with a 400', async () => {
        const t = await h.tenant();
        const res = await upload(h, {
          key: t.liveKey,
          file: { bytes: wavFile(1), filename: 'x.wav' },
          fields: [['language', 'not a language']],
        });
        expect(res.status).toBe(400);
        expect(res.body.error.param).toBe('language');
      });
    });
  });
}
