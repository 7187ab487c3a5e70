import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/db/schema.ts';
import { exportAccount } from '../../src/features/imports/export-account.service.ts';
import { type ImportItemOutcome, importExport } from '../../src/features/imports/import-export.service.ts';
import { readFolderExport } from '../../src/features/imports/read-export.ts';
import { actorOf } from '../helpers/actor.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { wavFile } from '../recordings/audio-fixtures.ts';
import { tempDataDir, upload } from '../recordings/helpers.ts';
import { audioOf, processAll, sha256 } from './export-fixtures.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const LIMITS = { maxEntryBytes: 16 * 1024 * 1024 };
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-account-export-'));

function noteIdOf(outcome: ImportItemOutcome | undefined): string {
  if (!outcome || outcome.outcome === 'failed') throw new Error(`not imported: ${JSON.stringify(outcome)}`);
  return outcome.note_id;
}

/** Every file of an export but the manifest: notes as parsed JSON, audio as its SHA-256, by relative path. */
function readExport(dir: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const rel of (fs.readdirSync(dir, { recursive: true }) as string[]).sort()) {
    const full = path.join(dir, rel);
    if (rel === 'manifest.json' || !fs.statSync(full).isFile()) continue;
    const bytes = fs.readFileSync(full);
    out.set(
      rel.split(path.sep).join('/'),
      rel.endsWith('.json') ? JSON.parse(bytes.toString('utf8')) : sha256(bytes),
    );
  }
  return out;
}

// SQLite → PostgreSQL → SQLite when PostgreSQL is there; SQLite → SQLite → SQLite otherwise.
const [from, to]: [Dialect, Dialect] = DIALECTS.includes('postgres')
  ? ['sqlite', 'postgres']
  : ['sqlite', 'sqlite'];

describe(`an account export moves an account ${from} → ${to} → ${from} field for field`, () => {
  // Each instance its own DATA_DIR, so the audio really moves.
  const a = useHarness(from, { DATA_DIR: tempDataDir() });
  const b = useHarness(to, { DATA_DIR: tempDataDir() });
  const c = useHarness(from, { DATA_DIR: tempDataDir() });

  it('reproduces every note, ids included, in both data spaces; again creates nothing; ids taken elsewhere are replaced', {
    timeout: 300_000,
  }, async () => {
    const source = await a.tenant();
    await importExport(
      a.deps,
      actorOf(source.accountId),
      readFolderExport(path.join(FIXTURES, 'limitless'), LIMITS),
      {
        me: 'Sam',
      },
    );
    await importExport(
      a.deps,
      actorOf(source.accountId),
      readFolderExport(path.join(FIXTURES, 'omi'), LIMITS),
    );
    // A note in the test space (through the service: a test key would seed the space with sample notes).
    await importExport(
      a.deps,
      { ...actorOf(source.accountId), mode: 'test' },
      readFolderExport(path.join(FIXTURES, 'omi'), LIMITS),
    );
    // A note with a language, whose analysis says what it did not do (analysis_notes).
    const german = await a.request('POST', '/v1/notes', {
      key: source.liveKey,
      body: {
        language: 'de-CH',
        transcript:
          'Anna: Wir haben heute über das Budget gesprochen und beschlossen, die Ausgaben zu senken.\n' +
          'Ben: Ich schicke den Bericht bis Freitag an die Finanzabteilung, damit alle ihn lesen können.',
      },
    });
    expect(german.status).toBe(202);
    // A note with a recording and its audio.
    const wav = wavFile(1.5);
    const recorded = await upload(a, {
      key: source.liveKey,
      file: { bytes: wav, filename: 'standup.wav' },
    });
    expect(recorded.status).toBe(202);
    const { recording_id: recordingId, note_id: recordedNote } = recorded.body;
    await processAll(a);
    // What a user changes after processing must move too: a completed item, a rename, tags.
    const items = await a.request('GET', '/v1/action-items?limit=100', { key: source.liveKey });
    const pending = items.body.data.find((i: { status: string }) => i.status === 'pending');
    expect(
      (
        await a.request('PATCH', `/v1/action-items/${pending.id}`, {
          key: source.liveKey,
          body: { status: 'completed' },
        })
      ).status,
    ).toBe(200);
    const notes = await a.request('GET', '/v1/notes?limit=100', { key: source.liveKey });
    const renamed = notes.body.data[0].id;
    expect(
      (
        await a.request('PATCH', `/v1/notes/${renamed}`, {
          key: source.liveKey,
          body: { title: 'Renamed by me', tags: ['Imported'] },
        })
      ).status,
    ).toBe(200);

    const first = tempDir();
    const manifest = await exportAccount(a.deps, first, { accountId: source.accountId });
    expect(readExport(first).get(`live/notes/${german.body.id}.json`)).toMatchObject({
      language: 'de-CH',
      analysis_notes: expect.any(String),
    });
    expect(manifest).toMatchObject({ format: 'minutes-account-export', version: 2 });
    expect(manifest.spaces).toEqual([
      { mode: 'live', folder: 'live/notes', notes: 7, audio_files: 1 },
      { mode: 'test', folder: 'test/notes', notes: 3, audio_files: 0 },
    ]);
    const original = readExport(first);
    // The audio beside its note, its size and checksum in the note file.
    expect(original.get(`live/notes/${recordingId}.wav`)).toBe(sha256(wav));
    expect(original.get(`live/notes/${recordedNote}.json`)).toMatchObject({
      recording: {
        id: recordingId,
        content_type: 'audio/wav',
        size_bytes: wav.byteLength,
        content_sha256: sha256(wav),
        audio: { file: `${recordingId}.wav`, size_bytes: wav.byteLength, sha256: sha256(wav) },
      },
    });
    // One item per note file; the audio file is part of its note.
    const total = [...original.keys()].filter((k) => k.endsWith('.json')).length;
    expect(total).toBe(10);

    // To an empty account of another instance, and back to a third.
    const target = await b.tenant();
    const moved = await importExport(b.deps, actorOf(target.accountId), readFolderExport(first, LIMITS));
    expect(moved.map((o) => o.outcome)).toEqual(Array(total).fill('imported'));
    const second = tempDir();
    await exportAccount(b.deps, second, { accountId: target.accountId });
    expect(readExport(second)).toEqual(original);
    const back = await c.tenant();
    await importExport(c.deps, actorOf(back.accountId), readFolderExport(second, LIMITS));
    const third = tempDir();
    await exportAccount(c.deps, third, { accountId: back.accountId });
    expect(readExport(third)).toEqual(original);

    // The moved notes answer the API as the originals did, search included.
    expect((await audioOf(b, target.liveKey, recordingId)).equals(wav)).toBe(true);
    expect((await audioOf(c, back.liveKey, recordingId)).equals(wav)).toBe(true);
    // The recording's row too, field for field.
    expect((await b.request('GET', `/v1/recordings/${recordingId}`, { key: target.liveKey })).body).toEqual(
      (await a.request('GET', `/v1/recordings/${recordingId}`, { key: source.liveKey })).body,
    );
    const detail = await b.request('GET', `/v1/notes/${renamed}?include=segments`, { key: target.liveKey });
    const was = await a.request('GET', `/v1/notes/${renamed}?include=segments`, { key: source.liveKey });
    expect(detail.body).toEqual(was.body);
    const found = await b.request('POST', '/v1/search', {
      key: target.liveKey,
      body: { query: 'vendor contract renewal' },
    });
    expect(found.body.results.length).toBeGreaterThan(0);

    // Again: nothing new.
    const again = await importExport(b.deps, actorOf(target.accountId), readFolderExport(first, LIMITS));
    expect(again.map((o) => o.outcome)).toEqual(Array(total).fill('skipped'));
    // Into another account of an instance where the ids are taken: new ids, the same notes otherwise, once.
    const other = await a.tenant();
    const copies = await importExport(a.deps, actorOf(other.accountId), readFolderExport(first, LIMITS));
    expect(copies.map((o) => o.outcome)).toEqual(Array(total).fill('imported'));
    expect(
      copies.every(
        (o) =>
          o.outcome === 'imported' &&
          !original.has(`live/notes/${o.note_id}.json`) &&
          !original.has(`test/notes/${o.note_id}.json`),
      ),
    ).toBe(true);
    const copy = await a.request(
      'GET',
      `/v1/notes/${noteIdOf(copies.find((o) => o.item.endsWith(`${renamed}.json`)))}`,
      {
        key: other.liveKey,
      },
    );
    expect(copy.body).toMatchObject({
      title: 'Renamed by me',
      tags: ['Imported'],
      created_at: was.body.created_at,
    });
    // The recording's id is taken on this instance: a new one, with the same audio.
    const recordedCopy = await a.request(
      'GET',
      `/v1/notes/${noteIdOf(copies.find((o) => o.item.endsWith(`${recordedNote}.json`)))}`,
      { key: other.liveKey },
    );
    expect(recordedCopy.body.recording_id).toMatch(/^rec_/);
    expect(recordedCopy.body.recording_id).not.toBe(recordingId);
    expect((await audioOf(a, other.liveKey, recordedCopy.body.recording_id)).equals(wav)).toBe(true);
    const twice = await importExport(a.deps, actorOf(other.accountId), readFolderExport(first, LIMITS));
    expect(twice.map((o) => o.outcome)).toEqual(Array(total).fill('skipped'));
  });
});
