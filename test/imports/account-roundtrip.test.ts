import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/db/schema.ts';
import { type Actor, SCOPES } from '../../src/features/api-keys/scopes.ts';
import { exportAccount } from '../../src/features/imports/export-account.service.ts';
import { type ImportItemOutcome, importExport } from '../../src/features/imports/import-export.service.ts';
import { readFolderExport } from '../../src/features/imports/read-export.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, useHarness } from '../helpers/harness.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const LIMITS = { maxEntryBytes: 16 * 1024 * 1024 };
const actorOf = (accountId: string): Actor => ({
  accountId,
  mode: 'live',
  scopes: new Set(SCOPES),
  keyId: 'test',
});
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-account-export-'));

async function processAll(h: Harness) {
  while ((await runDueJobs(h.deps)) > 0) {
    // every due job runs
  }
}

function noteIdOf(outcome: ImportItemOutcome | undefined): string {
  if (!outcome || outcome.outcome === 'failed') throw new Error(`not imported: ${JSON.stringify(outcome)}`);
  return outcome.note_id;
}

/** Every file of an export but the manifest, as parsed JSON by relative path. */
function readExport(dir: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const rel of (fs.readdirSync(dir, { recursive: true }) as string[]).sort()) {
    const full = path.join(dir, rel);
    if (rel !== 'manifest.json' && fs.statSync(full).isFile())
      out.set(rel.split(path.sep).join('/'), JSON.parse(fs.readFileSync(full, 'utf8')));
  }
  return out;
}

// SQLite → PostgreSQL → SQLite when PostgreSQL is there; SQLite → SQLite → SQLite otherwise.
const [from, to]: [Dialect, Dialect] = DIALECTS.includes('postgres')
  ? ['sqlite', 'postgres']
  : ['sqlite', 'sqlite'];

describe(`an account export moves an account ${from} → ${to} → ${from} field for field`, () => {
  const a = useHarness(from);
  const b = useHarness(to);
  const c = useHarness(from);

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
    expect(manifest).toMatchObject({ format: 'minutes-account-export', version: 1 });
    expect(manifest.spaces).toEqual([
      { mode: 'live', folder: 'live/notes', notes: 6 },
      { mode: 'test', folder: 'test/notes', notes: 3 },
    ]);
    const original = readExport(first);
    const total = original.size;
    expect(total).toBe(9);

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
    const twice = await importExport(a.deps, actorOf(other.accountId), readFolderExport(first, LIMITS));
    expect(twice.map((o) => o.outcome)).toEqual(Array(total).fill('skipped'));
  });
});
