import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportAccount } from '../../src/features/imports/export-account.service.ts';
import { storeImportedAudio } from '../../src/features/imports/import-audio.ts';
import { importExport } from '../../src/features/imports/import-export.service.ts';
import { importedRecordingId } from '../../src/features/imports/imported-recording-id.ts';
import { readFolderExport } from '../../src/features/imports/read-export.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { actorOf } from '../helpers/actor.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { wavFile } from '../recordings/audio-fixtures.ts';
import { filesUnder, tempDataDir, upload } from '../recordings/helpers.ts';
import { audioOf, sha256 } from './export-fixtures.ts';
import { writeZip } from './zip-fixtures.ts';

const LIMITS = { maxEntryBytes: 16 * 1024 * 1024 };
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-export-audio-'));

for (const dialect of DIALECTS) {
  describe(`the audio of an account export (${dialect})`, () => {
    const fromDir = tempDataDir();
    const toDir = tempDataDir();
    const a = useHarness(dialect, { DATA_DIR: fromDir });
    const b = useHarness(dialect, { DATA_DIR: toDir });

    it('a missing or altered audio file fails its note by name, nothing of it stored; the others are imported; fixed, it comes in', {
      timeout: 120_000,
    }, async () => {
      const source = await a.tenant();
      const wavs = [wavFile(1), wavFile(1.2), wavFile(0.8)];
      const recorded = [];
      for (const [i, wav] of wavs.entries()) {
        const res = await upload(a, { key: source.liveKey, file: { bytes: wav, filename: `call-${i}.wav` } });
        expect(res.status).toBe(202);
        recorded.push(res.body as { recording_id: string; note_id: string });
      }
      // A recording made from a transcript: a row without audio.
      const typed = await a.request('POST', '/v1/recordings', {
        key: source.liveKey,
        body: { transcript: 'Ana: The budget is approved.\nBen: I will send the report on Friday.' },
      });
      expect(typed.status).toBe(202);
      const dir = tempDir();
      await exportAccount(a.deps, dir, { accountId: source.accountId });
      const notes = path.join(dir, 'live/notes');
      const [altered, missing, intact] = recorded.map((r) => ({ ...r, file: `${r.recording_id}.wav` })) as [
        { recording_id: string; note_id: string; file: string },
        { recording_id: string; note_id: string; file: string },
        { recording_id: string; note_id: string; file: string },
      ];
      // The note made from a transcript has a recording without audio.
      const typedNote = JSON.parse(fs.readFileSync(path.join(notes, `${typed.body.note_id}.json`), 'utf8'));
      expect(typedNote.recording).toMatchObject({ audio: null });

      // One file's bytes changed (same size), another gone.
      const good = fs.readFileSync(path.join(notes, altered.file));
      const bad = Buffer.from(good);
      bad[bad.length - 1] = (bad[bad.length - 1]! + 1) % 256;
      fs.writeFileSync(path.join(notes, altered.file), bad);
      const aside = path.join(tempDir(), missing.file);
      fs.renameSync(path.join(notes, missing.file), aside);

      const target = await b.tenant();
      const outcomes = await importExport(b.deps, actorOf(target.accountId), readFolderExport(dir, LIMITS));
      const byItem = new Map(outcomes.map((o) => [o.item, o]));
      expect(outcomes).toHaveLength(4);
      expect(byItem.get(`live/notes/${altered.note_id}.json`)).toEqual({
        item: `live/notes/${altered.note_id}.json`,
        outcome: 'failed',
        error: expect.stringContaining(`its audio file ${altered.file} does not match its checksum`),
      });
      expect(byItem.get(`live/notes/${missing.note_id}.json`)).toEqual({
        item: `live/notes/${missing.note_id}.json`,
        outcome: 'failed',
        error: `its audio file ${missing.file} is missing from the export`,
      });
      expect(byItem.get(`live/notes/${intact.note_id}.json`)?.outcome).toBe('imported');
      expect(byItem.get(`live/notes/${typed.body.note_id}.json`)?.outcome).toBe('imported');

      // Nothing half-written: no note, no recording row, no audio file, no temp file of the failed ones.
      for (const failed of [altered, missing]) {
        expect((await b.request('GET', `/v1/notes/${failed.note_id}`, { key: target.liveKey })).status).toBe(
          404,
        );
        expect(
          await b.db.db.selectFrom('recordings').select('id').where('id', '=', failed.recording_id).execute(),
        ).toEqual([]);
      }
      expect(filesUnder(path.join(toDir, 'audio'))).toEqual([
        path.join('live', target.accountId, intact.file),
      ]);
      expect(filesUnder(path.join(toDir, 'tmp'))).toEqual([]);
      expect((await audioOf(b, target.liveKey, intact.recording_id)).equals(wavs[2]!)).toBe(true);
      // The typed note's recording came too, without audio, as it was.
      expect(
        (await b.request('GET', `/v1/recordings/${typed.body.recording_id}`, { key: target.liveKey })).body,
      ).toEqual(
        (await a.request('GET', `/v1/recordings/${typed.body.recording_id}`, { key: source.liveKey })).body,
      );

      // Put right, the same export brings the two in and skips the rest.
      fs.writeFileSync(path.join(notes, altered.file), good);
      fs.renameSync(aside, path.join(notes, missing.file));
      const again = await importExport(b.deps, actorOf(target.accountId), readFolderExport(dir, LIMITS));
      expect(new Map(again.map((o) => [o.item, o.outcome]))).toEqual(
        new Map([
          [`live/notes/${altered.note_id}.json`, 'imported'],
          [`live/notes/${missing.note_id}.json`, 'imported'],
          [`live/notes/${intact.note_id}.json`, 'skipped'],
          [`live/notes/${typed.body.note_id}.json`, 'skipped'],
        ]),
      );
      expect((await audioOf(b, target.liveKey, altered.recording_id)).equals(wavs[0]!)).toBe(true);
      expect((await audioOf(b, target.liveKey, missing.recording_id)).equals(wavs[1]!)).toBe(true);
      expect(sha256(await audioOf(b, target.liveKey, missing.recording_id))).toBe(sha256(wavs[1]!));
    });

    it('POST /v1/imports of the export as a ZIP brings each note with its audio, wherever its entry lies; a missing one fails its note', {
      timeout: 120_000,
    }, async () => {
      const source = await a.tenant();
      const wavs = [wavFile(1.1), wavFile(0.9)];
      const recorded = [];
      for (const wav of wavs) {
        const res = await upload(a, { key: source.liveKey, file: { bytes: wav, filename: 'call.wav' } });
        expect(res.status).toBe(202);
        recorded.push(res.body as { recording_id: string; note_id: string });
      }
      const [kept, lost] = recorded as [(typeof recorded)[0], (typeof recorded)[0]];
      const dir = tempDir();
      await exportAccount(a.deps, dir, { accountId: source.accountId });
      // As a folder zipped by hand: under a top folder, the audio entry first, one audio file left out.
      const entries = filesUnder(dir)
        .map((rel) => rel.split(path.sep).join('/'))
        .filter((rel) => rel !== `live/notes/${lost.recording_id}.wav`)
        .sort((x, y) => Number(y.endsWith('.wav')) - Number(x.endsWith('.wav')) || (x < y ? -1 : 1))
        .map((rel) => ({ name: `minutes-export/${rel}`, data: fs.readFileSync(path.join(dir, rel)) }));
      expect(entries[0]?.name).toBe(`minutes-export/live/notes/${kept.recording_id}.wav`);
      const zip = path.join(tempDir(), 'export.zip');
      await writeZip(zip, entries);

      const target = await b.tenant();
      const form = new FormData();
      form.append('file', new Blob([fs.readFileSync(zip)]), 'minutes-export.zip');
      const res = await b.app.request('/v1/imports', {
        method: 'POST',
        headers: { authorization: `Bearer ${target.liveKey}` },
        body: form,
      });
      expect(res.status).toBe(202);
      const { id } = (await res.json()) as { id: string };
      while ((await runDueJobs(b.deps)) > 0) {
        // the import's steps run
      }
      const got = await b.request('GET', `/v1/imports/${id}`, { key: target.liveKey });
      expect(got.body).toMatchObject({ status: 'completed', imported: 1, failed: 1 });
      expect(got.body.errors).toEqual([
        {
          item: `minutes-export/live/notes/${lost.note_id}.json`,
          message: `its audio file ${lost.recording_id}.wav is missing from the export`,
        },
      ]);
      expect((await audioOf(b, target.liveKey, kept.recording_id)).equals(wavs[0]!)).toBe(true);
      expect((await b.request('GET', `/v1/notes/${lost.note_id}`, { key: target.liveKey })).status).toBe(404);
      expect(filesUnder(path.join(toDir, 'audio', 'live', target.accountId))).toEqual([
        `${kept.recording_id}.wav`,
      ]);
    });

    it("an import killed after storing a note's audio, before its rows, leaves no file behind once it resumes, whether or not the recording id was free", {
      timeout: 120_000,
    }, async () => {
      const source = await a.tenant();
      const wav = wavFile(0.7);
      const res = await upload(a, { key: source.liveKey, file: { bytes: wav, filename: 'call.wav' } });
      expect(res.status).toBe(202);
      const recorded = res.body as { recording_id: string; note_id: string };
      const dir = tempDir();
      await exportAccount(a.deps, dir, { accountId: source.accountId });
      const notes = path.join(dir, 'live/notes');
      const exported = JSON.parse(fs.readFileSync(path.join(notes, `${recorded.note_id}.json`), 'utf8'));
      const sibling = async (name: string) => fs.createReadStream(path.join(notes, name));

      // Into another instance (the id is free) and into another account of the same one (the id is taken).
      for (const [h, dataDir] of [
        [b, toDir],
        [a, fromDir],
      ] as const) {
        const target = await h.tenant();
        const space = { accountId: target.accountId, mode: 'live' as const };
        // The state a crash leaves: the audio stored under the key the import chose, no row committed.
        const id = await importedRecordingId(h.db.db, space, exported.recording.id);
        await storeImportedAudio(h.deps, space, id, exported.recording.audio, sibling);
        expect(filesUnder(path.join(dataDir, 'audio', 'live', target.accountId))).toHaveLength(1);

        const outcomes = await importExport(h.deps, actorOf(target.accountId), readFolderExport(dir, LIMITS));
        expect(outcomes.map((o) => o.outcome)).toEqual(['imported']);
        const rows = await h.db.db
          .selectFrom('recordings')
          .select(['id', 'storage_key'])
          .where('account_id', '=', target.accountId)
          .execute();
        expect(rows).toHaveLength(1);
        expect(rows[0]?.storage_key).toBe(`live/${target.accountId}/${rows[0]?.id}.wav`);
        expect(filesUnder(path.join(dataDir, 'audio', 'live', target.accountId))).toEqual([
          `${rows[0]?.id}.wav`,
        ]);
        expect((await audioOf(h, target.liveKey, rows[0]!.id)).equals(wav)).toBe(true);
      }
    });

    it('an export of format version 1 (no recordings, no audio) still imports', async () => {
      const source = await a.tenant();
      const recorded = await upload(a, {
        key: source.liveKey,
        file: { bytes: wavFile(1), filename: 'x.wav' },
      });
      expect(recorded.status).toBe(202);
      const dir = tempDir();
      await exportAccount(a.deps, dir, { accountId: source.accountId });
      // Rewritten as the first version wrote it: no recording in the note, no audio file, version 1.
      const notes = path.join(dir, 'live/notes');
      const noteFile = path.join(notes, `${recorded.body.note_id}.json`);
      const { recording: _dropped, ...v1 } = JSON.parse(fs.readFileSync(noteFile, 'utf8'));
      fs.writeFileSync(noteFile, JSON.stringify(v1));
      fs.rmSync(path.join(notes, `${recorded.body.recording_id}.wav`));
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
      fs.writeFileSync(
        path.join(dir, 'manifest.json'),
        JSON.stringify({
          ...manifest,
          version: 1,
          spaces: manifest.spaces.map(({ audio_files: _n, ...s }: { audio_files: number }) => s),
        }),
      );
      const target = await b.tenant();
      const outcomes = await importExport(b.deps, actorOf(target.accountId), readFolderExport(dir, LIMITS));
      expect(outcomes.map((o) => o.outcome)).toEqual(['imported']);
      const note = await b.request('GET', `/v1/notes/${recorded.body.note_id}`, { key: target.liveKey });
      expect(note.status).toBe(200);
      expect(note.body.recording_id).toBeUndefined();
    });
  });
}
