import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runImportStep } from '../../src/features/imports/import-run.service.ts';
import { enqueueJob } from '../../src/jobs/queue.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, type TestResponse, useHarness } from '../helpers/harness.ts';
import { checkResponseAgainstOpenApi, expectApiError } from '../helpers/openapi-check.ts';
import { writeZip } from './zip-fixtures.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const LIFELOGS = path.join(FIXTURES, 'limitless', 'lifelogs');
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-import-routes-'));

/** The fixture lifelogs as ZIP entries, with extra entries after them. */
function lifelogEntries() {
  return fs
    .readdirSync(LIFELOGS)
    .sort()
    .map((name) => ({ name: `lifelogs/${name}`, data: fs.readFileSync(path.join(LIFELOGS, name)) }));
}

async function zipBytes(entries: { name: string; data: string | Uint8Array }[]): Promise<Buffer> {
  const file = path.join(tempDir(), 'export.zip');
  await writeZip(file, entries);
  return fs.readFileSync(file);
}

async function post(
  h: Harness,
  key: string | null,
  file?: { bytes: Uint8Array; filename: string },
  fields: [string, string][] = [],
): Promise<TestResponse> {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  if (file) form.append('file', new Blob([file.bytes]), file.filename);
  const res = await h.app.request('/v1/imports', {
    method: 'POST',
    headers: key ? { authorization: `Bearer ${key}` } : {},
    body: form,
  });
  const text = await res.text();
  const body = text ? JSON.parse(text) : text;
  await checkResponseAgainstOpenApi(h.app, { method: 'POST', path: '/v1/imports', status: res.status, body });
  return { status: res.status, headers: res.headers, body, text };
}

/** Runs the import's steps (only its own jobs) until it has finished. */
async function finish(h: Harness, id: string, budget?: { files: number; ms: number }) {
  for (let i = 0; i < 1000; i++) {
    const row = await h.db.db
      .selectFrom('imports')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    if (row.status !== 'running') return row;
    await runImportStep(h.deps, { import_id: id, step: row.step }, budget);
  }
  throw new Error('the import did not finish');
}

const notesOf = (h: Harness, accountId: string) =>
  h.db.db
    .selectFrom('notes')
    .select(['id', 'source', 'source_id', 'title'])
    .where('account_id', '=', accountId)
    .execute();

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const dataDir = tempDir();
    const h = useHarness(dialect, { DATA_DIR: dataDir });

    describe('happy path', () => {
      it('imports a Limitless ZIP as a job: 202, progress, notes; the bad entries fail by name and the rest is imported; again creates nothing', async () => {
        const t = await h.tenant();
        const bytes = await zipBytes([
          ...lifelogEntries(),
          { name: 'lifelogs/broken.json', data: '{"contents": [' },
          { name: '../escape.md', data: '# Out\n' },
          { name: 'lifelogs/bomb.md', data: Buffer.alloc(4 * 1024 * 1024, 0x20) },
        ]);
        const accepted = await post(h, t.liveKey, { bytes, filename: 'limitless-export.zip' }, [
          ['me', 'Sam'],
        ]);
        expect(accepted.status).toBe(202);
        expect(accepted.body).toMatchObject({ status: 'running', imported: 0, failed: 0 });
        expect(accepted.body.id).toMatch(/^imp_/);

        // Through the application's own job queue and catalog.
        while ((await runDueJobs(h.deps)) > 0) {
          // every due job runs: the import's steps, then the notes' processing
        }
        const got = await h.request('GET', `/v1/imports/${accepted.body.id}`, { key: t.liveKey });
        expect(got.status).toBe(200);
        expect(got.body).toMatchObject({
          status: 'completed',
          source: 'limitless',
          total: 5,
          imported: 2,
          skipped: 0,
          failed: 3,
        });
        expect(got.body.finished_at).toEqual(expect.any(String));
        const errors = got.body.errors as { item: string; message: string }[];
        expect(errors.map((e) => e.item).sort()).toEqual([
          '../escape.md',
          'lifelogs/bomb.md',
          'lifelogs/broken.json',
        ]);
        expect(errors.find((e) => e.item === 'lifelogs/broken.json')?.message).toMatch(/not valid JSON/);
        expect(errors.find((e) => e.item === 'lifelogs/bomb.md')?.message).toMatch(/bomb/);
        expect(errors.find((e) => e.item === '../escape.md')?.message).toMatch(/unsafe entry name/);
        const notes = await notesOf(h, t.accountId);
        expect(notes.map((n) => n.title).sort()).toEqual(['Coffee order', 'Weekly planning with Dana']);
        // The uploaded file is gone once the import has ended.
        expect(
          fs.readdirSync(path.join(dataDir, 'imports')).filter((f) => f.startsWith(accepted.body.id)),
        ).toEqual([]);

        const again = await post(h, t.liveKey, { bytes, filename: 'limitless-export.zip' });
        const second = await finish(h, again.body.id);
        expect(second).toMatchObject({ status: 'completed', imported: 0, skipped: 2, failed: 3 });
        expect(await notesOf(h, t.accountId)).toHaveLength(2);
      });

      it('imports an Omi export sent as JSON, naming the conversation that fails', async () => {
        const t = await h.tenant();
        const bytes = fs.readFileSync(path.join(FIXTURES, 'omi', 'export-all.json'));
        const accepted = await post(h, t.liveKey, { bytes, filename: 'omi.json' });
        expect(accepted.status).toBe(202);
        await finish(h, accepted.body.id);
        const got = await h.request('GET', `/v1/imports/${accepted.body.id}`, { key: t.liveKey });
        expect(got.body).toMatchObject({
          status: 'completed',
          source: 'omi',
          total: 3,
          imported: 2,
          failed: 1,
        });
        expect(got.body.errors).toEqual([
          { item: 'omi.json: conversations[2]', message: expect.any(String) },
        ]);
      });

      it('queues each step ahead of the notes the previous step stored, behind what was queued before it', async () => {
        const t = await h.tenant();
        const accepted = await post(h, t.liveKey, {
          bytes: await zipBytes(lifelogEntries()),
          filename: 'export.zip',
        });
        // Queued before the step runs, as a note posted while an import is under way.
        await enqueueJob(h.db.db, {
          accountId: t.accountId,
          mode: 'live',
          type: 'test.earlier',
          payload: {},
          maxAttempts: 1,
          runAt: new Date(Date.now() - 1).toISOString(),
        });
        await runImportStep(h.deps, { import_id: accepted.body.id, step: 0 }, { files: 1, ms: 60_000 });
        // The account's jobs in the order the queue takes them (oldest run_at first).
        const queued = await h.db.db
          .selectFrom('jobs')
          .select(['type', 'payload'])
          .where('account_id', '=', t.accountId)
          .where('status', '=', 'queued')
          .orderBy('run_at')
          .orderBy('id')
          .execute();
        // (Step 0's own job is still queued: the test ran the step without claiming it.)
        const step = (p: unknown) => (typeof p === 'string' ? JSON.parse(p) : p).step as number | undefined;
        expect(queued.map((j) => `${j.type}${j.type === 'import.run' ? ` ${step(j.payload)}` : ''}`)).toEqual(
          ['import.run 0', 'test.earlier', 'import.run 1', 'process_note'],
        );
        await h.db.db.deleteFrom('jobs').where('account_id', '=', t.accountId).execute();
      });

      it('resumes a killed import where it stopped, with no duplicate note, and a stale step job does nothing', async () => {
        const t = await h.tenant();
        const bytes = await zipBytes(lifelogEntries());
        const accepted = await post(h, t.liveKey, { bytes, filename: 'export.zip' });
        const id = accepted.body.id as string;
        // One file per step: the first step stores the first lifelog and hands over to the next step.
        await runImportStep(h.deps, { import_id: id, step: 0 }, { files: 1, ms: 60_000 });
        const afterFirst = await h.db.db
          .selectFrom('imports')
          .selectAll()
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        expect(afterFirst).toMatchObject({ step: 1, files_done: 1, imported: 1, status: 'running' });
        // The step-0 job running again (its worker was taken for dead) leaves the import alone.
        await runImportStep(h.deps, { import_id: id, step: 0 }, { files: 1, ms: 60_000 });
        expect(await notesOf(h, t.accountId)).toHaveLength(1);
        // Killed after storing a note but before counting its file: the count is lost, the note is not.
        await h.db.db
          .updateTable('imports')
          .set({ files_done: 0, imported: 0 })
          .where('id', '=', id)
          .execute();
        const done = await finish(h, id);
        expect(done).toMatchObject({ status: 'completed', total: 2, failed: 0 });
        expect(done.imported + done.skipped).toBe(2);
        const notes = await notesOf(h, t.accountId);
        expect(notes).toHaveLength(2);
        expect(new Set(notes.map((n) => n.source_id)).size).toBe(2);
      });
    });

    describe('errors', () => {
      it('refuses a file that is neither ZIP nor JSON with a 400 naming both, and keeps nothing', async () => {
        const t = await h.tenant();
        const res = await post(h, t.liveKey, {
          bytes: Buffer.from('just some text\n'),
          filename: 'notes.txt',
        });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.message).toMatch(/neither a ZIP archive nor a JSON export/);
        expect(
          await h.db.db.selectFrom('imports').select('id').where('account_id', '=', t.accountId).execute(),
        ).toEqual([]);
      });

      it('a 400 without a file, for an unknown field, and a 415 for a body that is not multipart', async () => {
        const t = await h.tenant();
        expectApiError(await post(h, t.liveKey), 400, 'parameter_missing');
        const unknown = await post(h, t.liveKey, { bytes: Buffer.from('[]'), filename: 'a.json' }, [
          ['from', 'omi'],
        ]);
        expectApiError(unknown, 400, 'parameter_unknown');
        const notMultipart = await h.request('POST', '/v1/imports', { key: t.liveKey, body: { file: 'x' } });
        expectApiError(notMultipart, 415, 'unsupported_media_type');
      });

      it('malformed JSON: the import fails with an error naming the file', async () => {
        const t = await h.tenant();
        const accepted = await post(h, t.liveKey, {
          bytes: Buffer.from('{"conversations": [ {'),
          filename: 'omi.json',
        });
        expect(accepted.status).toBe(202);
        await finish(h, accepted.body.id);
        const got = await h.request('GET', `/v1/imports/${accepted.body.id}`, { key: t.liveKey });
        expect(got.body).toMatchObject({ status: 'failed', imported: 0, failed: 1 });
        expect(got.body.errors[0]).toMatchObject({
          item: 'omi.json',
          message: expect.stringMatching(/not valid JSON/),
        });
      });

      it('a damaged archive: the import fails naming it', async () => {
        const t = await h.tenant();
        const bytes = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(200, 7)]);
        const accepted = await post(h, t.liveKey, { bytes, filename: 'export.zip' });
        const done = await finish(h, accepted.body.id);
        expect(done).toMatchObject({ status: 'failed', imported: 0, failed: 1 });
        const got = await h.request('GET', `/v1/imports/${accepted.body.id}`, { key: t.liveKey });
        expect(got.body.errors[0].item).toBe('export.zip');
      });
    });

    describe('security', () => {
      it('401 without a key, with a bad key and with a revoked key', async () => {
        const t = await h.tenant();
        const file = { bytes: Buffer.from('[]'), filename: 'a.json' };
        expectApiError(await post(h, null, file), 401);
        expectApiError(await post(h, 'mk_live_not_a_real_key', file), 401);
        expectApiError(await post(h, await t.revokedKey(), file), 401);
        const accepted = await post(h, t.liveKey, file);
        expectApiError(await h.request('GET', `/v1/imports/${accepted.body.id}`), 401);
        expectApiError(
          await h.request('GET', `/v1/imports/${accepted.body.id}`, { key: await t.revokedKey() }),
          401,
        );
      });

      it('403 without the scope: notes:write to import, notes:read to follow', async () => {
        const t = await h.tenant();
        const file = { bytes: Buffer.from('[]'), filename: 'a.json' };
        expectApiError(await post(h, await t.keyWithScopes(['notes:read']), file), 403);
        const accepted = await post(h, await t.keyWithScopes(['notes:write']), file);
        expect(accepted.status).toBe(202);
        const res = await h.request('GET', `/v1/imports/${accepted.body.id}`, {
          key: await t.keyWithScopes(['notes:write']),
        });
        expectApiError(res, 403);
      });

      it("404 for another account's import and for the other mode's", async () => {
        const a = await h.tenant();
        const b = await h.tenant();
        const accepted = await post(h, a.liveKey, { bytes: Buffer.from('[]'), filename: 'a.json' });
        expectApiError(await h.request('GET', `/v1/imports/${accepted.body.id}`, { key: b.liveKey }), 404);
        expectApiError(await h.request('GET', `/v1/imports/${accepted.body.id}`, { key: a.testKey }), 404);
        expectApiError(await h.request('GET', '/v1/imports/imp_nope', { key: a.liveKey }), 404);
      });

      it("a test key's import writes only test notes; a Minutes export's live notes are refused by name", async () => {
        const t = await h.tenant();
        const bytes = await zipBytes([
          ...lifelogEntries(),
          { name: 'minutes/live/notes/note_x.json', data: '{}' },
        ]);
        const accepted = await post(h, t.testKey, { bytes, filename: 'export.zip' });
        const done = await finish(h, accepted.body.id);
        expect(done).toMatchObject({ imported: 2, failed: 1 });
        const got = await h.request('GET', `/v1/imports/${accepted.body.id}`, { key: t.testKey });
        expect(got.body.errors).toEqual([
          { item: 'minutes/live/notes/note_x.json', message: expect.stringMatching(/live data space/) },
        ]);
        const modes = await h.db.db
          .selectFrom('notes')
          .select('mode')
          .where('account_id', '=', t.accountId)
          .where('source', '=', 'limitless')
          .execute();
        expect(modes.map((m) => m.mode)).toEqual(['test', 'test']);
      });
    });
  });
}
