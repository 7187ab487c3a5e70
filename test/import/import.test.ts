import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runCli } from '../cli/cli-process.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, useHarness } from '../helpers/harness.ts';
import { type OpenAiServer, startOpenAiServer, verboseJson } from '../processing/openai-server.ts';
import { mp3File, wavFile } from '../recordings/audio-fixtures.ts';
import { eventsOf, filesUnder, tempDataDir } from '../recordings/helpers.ts';

/** `minutes import …args` in a child process with only the given settings. */
function runImport(args: string[], settings: Record<string, string>): Promise<CliResult> {
  return runCli(['import', ...args], settings);
}

/** A folder as someone would point the importer at: recordings, transcripts in every format, and clutter. */
function makeFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-import-'));
  const write = (name: string, data: string | Uint8Array) => {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), data);
  };
  write('standup.wav', wavFile(2));
  write('calls/client call.mp3', mp3File(3));
  write('notes.txt', "Ana: We ship the beta on Monday.\nBo: I'll write the release notes by Friday.");
  write('review.vtt', 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ana>The review went well.\n');
  write('retro.srt', '1\n00:00:01,000 --> 00:00:03,500\nBo: Next sprint we fix the flaky tests.\n');
  write(
    'whisper.json',
    JSON.stringify(verboseJson([[undefined, 0, 2.5, 'Quick sync about the hiring plan.']])),
  );
  write('body.json', JSON.stringify({ title: 'Budget call', transcript: 'Ana: The budget is approved.' }));
  write(
    'segments.json',
    JSON.stringify([{ speaker: 'Ana', start_ms: 0, end_ms: 1500, text: 'Hello team.' }]),
  );
  write('broken.wav', 'this is not audio at all');
  write('slides.pdf', '%PDF-1.4');
  write('.DS_Store', 'junk');
  return dir;
}

async function recordingsOf(h: Harness, accountId: string, mode: 'live' | 'test' = 'live') {
  return h.db.db
    .selectFrom('recordings')
    .select(['id', 'content_type', 'note_id', 'content_sha256'])
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .execute();
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    let server: OpenAiServer;
    beforeAll(async () => {
      server = await startOpenAiServer();
      server.onTranscription(() => ({
        json: verboseJson([
          ['A', 0, 3, 'The roadmap looks good.'],
          ['B', 3, 6, "I'll update the roadmap by Friday."],
        ]),
      }));
    });
    afterAll(async () => {
      await server.close();
    });
    const dataDir = tempDataDir();
    const h = useHarness(dialect, { DATA_DIR: dataDir });
    const settings = (extra: Record<string, string> = {}) => ({
      DATABASE_URL: h.db.database.dialect === 'sqlite' ? `sqlite://${h.db.database.file}` : h.db.database.url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      ...extra,
    });

    it('imports every audio file and transcript of a folder, reports the bad one, then skips them all', async () => {
      const t = await h.tenant();
      const dir = makeFolder();
      const first = await runImport([dir, '--account', t.email, '--json'], settings());
      expect(first.code, first.stderr).toBe(1);
      const results = JSON.parse(first.stdout) as any[];
      expect(results.map((r) => [path.relative(dir, r.file), r.outcome])).toEqual([
        ['body.json', 'imported'],
        ['broken.wav', 'failed'],
        ['calls/client call.mp3', 'imported'],
        ['notes.txt', 'imported'],
        ['retro.srt', 'imported'],
        ['review.vtt', 'imported'],
        ['segments.json', 'imported'],
        ['standup.wav', 'imported'],
        ['whisper.json', 'imported'],
      ]);
      expect(results.find((r) => r.outcome === 'failed').error).toMatch(/not audio in a supported format/);
      expect(first.stderr).toContain(
        `failed: ${path.join(dir, 'broken.wav')}: The uploaded file is not audio`,
      );

      const recordings = await recordingsOf(h, t.accountId);
      expect(recordings.map((r) => r.content_type).sort()).toEqual([
        'application/json',
        'application/json',
        'application/x-subrip',
        'audio/mpeg',
        'audio/wav',
        'text/plain',
        'text/plain',
        'text/vtt',
      ]);
      // Each import is ingested as the API does it: recording.ready then note.created, per file.
      const types = (await eventsOf(h, t.accountId)).map((e) => e.type);
      expect(types).toEqual(Array.from({ length: 8 }, () => ['recording.ready', 'note.created']).flat());
      // The audio was copied into storage; the originals are untouched.
      expect(filesUnder(path.join(dataDir, 'audio', 'live', t.accountId))).toHaveLength(2);
      expect(fs.existsSync(path.join(dir, 'standup.wav'))).toBe(true);

      const titled = await h.request('GET', `/v1/notes/${results[0].note_id}`, { key: t.liveKey });
      expect(titled.body).toMatchObject({ title: 'Budget call', transcript: 'Ana: The budget is approved.' });
      const whisper = await h.request('GET', `/v1/notes/${results.at(-1).note_id}?include=segments`, {
        key: t.liveKey,
      });
      expect(whisper.body.segments).toEqual([
        { speaker: 'Speaker 1', start_ms: 0, end_ms: 2500, text: 'Quick sync about the hiring plan.' },
      ]);
      const mtime = fs.statSync(path.join(dir, 'notes.txt')).mtime.toISOString();
      const notes = await h.request('GET', `/v1/notes/${results[3].note_id}`, { key: t.liveKey });
      expect(notes.body.created_at).toBe(mtime);

      const again = await runImport([dir, '--account', t.email], settings());
      expect(again.code).toBe(1);
      expect(again.stdout.trim()).toBe(
        'Imported 0 files (0 audio, 0 transcripts); skipped 8 already imported; 1 failed.',
      );
      expect(again.stderr).toContain('skipped: standup.wav');
      expect(await recordingsOf(h, t.accountId)).toHaveLength(8);
    }, 60_000);

    it('--process transcribes and analyzes the imported notes before exiting; --mode and --tags apply', async () => {
      const t = await h.tenant();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-import-'));
      fs.writeFileSync(path.join(dir, 'roadmap.wav'), wavFile(1.5));
      fs.writeFileSync(path.join(dir, 'sync.txt'), 'Ana: Can you send the minutes by Friday, Bo?\nBo: Sure.');
      const run = await runImport(
        [
          path.join(dir, 'roadmap.wav'),
          path.join(dir, 'sync.txt'),
          '--account',
          t.email,
          '--mode',
          'test',
          '--tags',
          'imported, q4',
          '--process',
        ],
        settings({ TRANSCRIBER: 'openai', TRANSCRIBE_BASE_URL: server.baseUrl }),
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe(
        'Imported 2 files (1 audio, 1 transcript); skipped 0 already imported; 0 failed.',
      );
      expect(await recordingsOf(h, t.accountId, 'live')).toEqual([]);
      const recordings = await recordingsOf(h, t.accountId, 'test');
      expect(recordings).toHaveLength(2);
      for (const r of recordings) {
        const note = await h.request('GET', `/v1/notes/${r.note_id}`, { key: t.testKey });
        expect(note.body.status, JSON.stringify(note.body)).toBe('ready');
        expect(note.body.tags).toEqual(['imported', 'q4']);
        expect(note.body.action_items.length).toBe(1);
      }
    }, 60_000);

    it('refuses a named file it cannot import, and a path that does not exist, with one line and exit 1', async () => {
      const t = await h.tenant();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-import-'));
      fs.writeFileSync(path.join(dir, 'slides.pdf'), '%PDF-1.4');
      const pdf = await runImport([path.join(dir, 'slides.pdf'), '--account', t.email], settings());
      expect(pdf.code).toBe(1);
      expect(pdf.stderr).toMatch(/^error: Cannot import .*slides\.pdf: not an audio file/);
      const missing = await runImport([path.join(dir, 'nope.wav'), '--account', t.email], settings());
      expect(missing.code).toBe(1);
      expect(missing.stderr.trim()).toBe(`error: No such file or directory: ${path.join(dir, 'nope.wav')}`);
      expect(await recordingsOf(h, t.accountId)).toEqual([]);
    }, 60_000);
  });
}
