import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Mode } from '../../src/db/schema.ts';
import { PROCESS_NOTE_JOB } from '../../src/features/processing/process-note.job.ts';
import type { Embedder } from '../../src/features/search/embedders/embedder.ts';
import { startWebhookWorker } from '../../src/features/webhooks/webhook-worker.ts';
import { runDueJobs, startWorker } from '../../src/jobs/worker.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, type Tenant, useHarness } from '../helpers/harness.ts';

// A webhook consumer that searches as soon as `note.processed` arrives must find the note: the search index
// entries are written in the transaction that publishes the note, not after it.

const TRANSCRIPT = [
  'Maya: The zymurgy workshop budget was exceeded by twelve percent.',
  'Daniel: I will send the revised brewing forecast to finance by Friday.',
].join('\n');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function postNote(h: Harness, tenant: Tenant, body: Record<string, unknown> = {}): Promise<string> {
  const res = await h.request('POST', '/v1/notes', {
    key: tenant.liveKey,
    body: { transcript: TRANSCRIPT, ...body },
  });
  expect(res.status, res.text.slice(0, 300)).toBe(202);
  return res.body.id as string;
}

async function searchIds(h: Harness, key: string, query: string): Promise<string[]> {
  const res = await h.request('POST', '/v1/search', { key, body: { query } });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return (res.body.results as { note_id: string }[]).map((r) => r.note_id);
}

async function eventTypes(h: Harness, accountId: string, mode: Mode = 'live') {
  const rows = await h.db.db
    .selectFrom('events')
    .select('type')
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .orderBy('seq')
    .execute();
  return rows.map((r) => r.type);
}

/** Whether the outbox holds `note.processed` of this note. */
async function processedEventOf(h: Harness, noteId: string): Promise<boolean> {
  const rows = await h.db.db
    .selectFrom('events')
    .select('payload')
    .where('type', '=', 'note.processed')
    .execute();
  return rows.some((r) => (JSON.parse(r.payload) as { data: { id: string } }).data.id === noteId);
}

async function indexRows(h: Harness, noteId: string) {
  const count = async (table: string) =>
    Number(
      (
        await sql<{
          n: number;
        }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE note_id = ${noteId}`.execute(h.db.db)
      ).rows[0]!.n,
    );
  return { chunks: await count('search_chunks'), notes: await count('search_notes') };
}

/** Vectors of the note in the sqlite-vec table (SQLite with the extension, as the harness opens it). */
async function vecRows(h: Harness, noteId: string): Promise<number | undefined> {
  const engine = await h.deps.search.engine();
  if (engine.store.kind !== 'sqlite-vec') return undefined;
  const rows = await sql<{ n: number }>`
    SELECT count(*) AS n FROM search_vec_384 v JOIN notes n ON n.seq = v.note_seq WHERE n.id = ${noteId}`.execute(
    h.db.db,
  );
  return Number(rows.rows[0]!.n);
}

/**
 * A tenant with one unrelated processed note (a term found in every note of an account ranks low) whose
 * space was searched once: it is then "covered", so a search does not index missed notes on the spot
 * (which would hide a note published before it was indexed).
 */
async function tenantWithHistory(h: Harness): Promise<Tenant> {
  const tenant = await h.tenant();
  await postNote(h, tenant, {
    transcript:
      'Carol: We interviewed three candidates for the designer role.\nDan: Let us hire the second one.',
  });
  expect(await runDueJobs(h.deps)).toBe(1);
  expect(await searchIds(h, tenant.liveKey, 'zymurgy')).toEqual([]);
  return tenant;
}

/** Replaces the engine's embedder for one test (the engine is shared by the harness's deps). */
async function swapEmbedder(h: Harness, wrap: (inner: Embedder) => Embedder['embed']): Promise<() => void> {
  const engine = await h.deps.search.engine();
  const inner = engine.embedder;
  if (!inner) return () => {};
  engine.embedder = { id: inner.id, dims: inner.dims, embed: wrap(inner) };
  return () => {
    engine.embedder = inner;
  };
}

for (const dialect of DIALECTS) {
  describe(`a note is searchable when note.processed is sent (${dialect})`, () => {
    const h = useHarness(dialect, {
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOKS_POLL_MS: '20',
      WORKER_POLL_MS: '20',
      JOB_MAX_ATTEMPTS: '3',
    });
    let restore = () => {};

    beforeEach(async () => {
      await h.db.db.deleteFrom('jobs').execute();
    });
    afterEach(() => {
      restore();
      restore = () => {};
    });

    it('a webhook receiver that searches on note.processed finds the note', async () => {
      const tenant = await tenantWithHistory(h);
      // A slow embedder: were the index written after the publish, the delivery would overtake it.
      restore = await swapEmbedder(h, (inner) => async (texts, kind) => {
        await sleep(300);
        return inner.embed(texts, kind);
      });

      const seen: { type: string; found: string[]; semantic: string[] }[] = [];
      const receiver = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', async () => {
          const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string };
          // Searches before answering, as a consumer reacting to the event would.
          const found = event.type === 'note.processed' ? await searchIds(h, tenant.liveKey, 'zymurgy') : [];
          const semantic =
            event.type === 'note.processed'
              ? await searchIds(h, tenant.liveKey, 'brewing forecast for finance')
              : [];
          seen.push({ type: event.type, found, semantic });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const { port } = receiver.address() as AddressInfo;
      const hook = await h.request('POST', '/v1/webhooks', {
        key: tenant.liveKey,
        body: { url: `http://127.0.0.1:${port}/hook`, events: ['note.created', 'note.processed'] },
      });
      expect(hook.status).toBe(201);

      // The processing worker and the delivery worker run side by side, as in `minutes serve`.
      let jobs: ReturnType<typeof startWorker> | undefined;
      let deliveries: ReturnType<typeof startWebhookWorker> | undefined;
      try {
        jobs = startWorker(h.deps);
        deliveries = startWebhookWorker(h.deps);
        const id = await postNote(h, tenant);
        jobs.wake();
        const deadline = Date.now() + 20_000;
        while (!seen.some((s) => s.type === 'note.processed')) {
          if (Date.now() > deadline) throw new Error(`no note.processed delivery: ${JSON.stringify(seen)}`);
          await sleep(25);
        }
        const processed = seen.find((s) => s.type === 'note.processed')!;
        expect(processed.found).toEqual([id]);
        expect(processed.semantic).toContain(id);
      } finally {
        await Promise.all([jobs?.stop(), deliveries?.stop()]);
        await new Promise<void>((resolve) => receiver.close(() => resolve()));
      }
    });

    it('an outbox reader that searches on note.processed finds the note', async () => {
      const tenant = await tenantWithHistory(h);
      restore = await swapEmbedder(h, (inner) => async (texts, kind) => {
        await sleep(300);
        return inner.embed(texts, kind);
      });
      const id = await postNote(h, tenant);
      const running = runDueJobs(h.deps);
      // Polls the outbox while the job runs; the first time note.processed is there, the note must be found.
      let found: string[] | undefined;
      while (found === undefined) {
        if (await processedEventOf(h, id)) {
          found = await searchIds(h, tenant.liveKey, 'zymurgy');
        } else {
          await sleep(5);
        }
      }
      await running;
      expect(found).toEqual([id]);
    });

    it('a failure writing the index publishes nothing, and the job retries', async () => {
      const tenant = await h.tenant();
      const id = await postNote(h, tenant);
      // The index's last write (search_notes) is refused: chunks and the vector were written before it.
      if (dialect === 'sqlite') {
        await sql`CREATE TRIGGER refuse_index BEFORE INSERT ON search_notes
          BEGIN SELECT RAISE(ABORT, 'index write refused'); END`.execute(h.db.db);
      } else {
        await sql`CREATE FUNCTION refuse_index() RETURNS trigger LANGUAGE plpgsql
          AS $$ BEGIN RAISE EXCEPTION 'index write refused'; END $$`.execute(h.db.db);
        await sql`CREATE TRIGGER refuse_index BEFORE INSERT ON search_notes
          FOR EACH ROW EXECUTE FUNCTION refuse_index()`.execute(h.db.db);
      }
      try {
        expect(await runDueJobs(h.deps)).toBe(1);
      } finally {
        await sql`DROP TRIGGER refuse_index${sql.raw(dialect === 'postgres' ? ' ON search_notes' : '')}`.execute(
          h.db.db,
        );
        if (dialect === 'postgres') await sql`DROP FUNCTION refuse_index()`.execute(h.db.db);
      }

      // Nothing of the analysis was published, and nothing of the index is left behind.
      const note = await h.request('GET', `/v1/notes/${id}`, { key: tenant.liveKey });
      expect(note.body.status).toBe('processing');
      expect(note.body.action_items).toEqual([]);
      expect(await eventTypes(h, tenant.accountId)).toEqual(['note.created']);
      expect(await indexRows(h, id)).toEqual({ chunks: 0, notes: 0 });
      expect(await vecRows(h, id)).toBeOneOf([0, undefined]);
      const job = await h.db.db
        .selectFrom('jobs')
        .selectAll()
        .where('type', '=', PROCESS_NOTE_JOB)
        .executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: 'queued', attempts: 1 });
      expect(job.last_error).toContain('index write refused');

      // The retry publishes the note, indexed, with its events once.
      await h.db.db
        .updateTable('jobs')
        .set({ run_at: new Date(0).toISOString() })
        .execute();
      expect(await runDueJobs(h.deps)).toBe(1);
      const ready = await h.request('GET', `/v1/notes/${id}`, { key: tenant.liveKey });
      expect(ready.body.status).toBe('ready');
      const events = await eventTypes(h, tenant.accountId);
      expect(events[0]).toBe('note.created');
      expect(events.at(-1)).toBe('note.processed');
      expect(events.filter((t) => t === 'note.processed')).toHaveLength(1);
      expect((await indexRows(h, id)).notes).toBe(1);
      expect(await vecRows(h, id)).toBeOneOf([1, undefined]);
      expect(await searchIds(h, tenant.liveKey, 'zymurgy')).toEqual([id]);
    });

    it('an embedder that fails holds the note back; the last attempt indexes it for keywords only', async (ctx) => {
      const engine = await h.deps.search.engine();
      if (!engine.embedder) ctx.skip(); // PostgreSQL without pgvector embeds nothing.
      const tenant = await h.tenant();
      let calls = 0;
      restore = await swapEmbedder(h, () => async () => {
        calls++;
        throw new Error('embedding provider unavailable');
      });
      const id = await postNote(h, tenant);
      expect(await runDueJobs(h.deps)).toBe(1);
      expect(calls).toBe(1);
      expect((await h.request('GET', `/v1/notes/${id}`, { key: tenant.liveKey })).body.status).toBe(
        'processing',
      );
      expect(await eventTypes(h, tenant.accountId)).toEqual(['note.created']);
      expect(await indexRows(h, id)).toEqual({ chunks: 0, notes: 0 });

      // Attempt 2 fails the same way; attempt 3 (the last) publishes the note without vectors.
      for (const _ of [2, 3]) {
        await h.db.db
          .updateTable('jobs')
          .set({ run_at: new Date(0).toISOString() })
          .execute();
        expect(await runDueJobs(h.deps)).toBe(1);
      }
      expect(calls).toBe(3);
      expect((await h.request('GET', `/v1/notes/${id}`, { key: tenant.liveKey })).body.status).toBe('ready');
      expect((await eventTypes(h, tenant.accountId)).filter((t) => t === 'note.processed')).toHaveLength(1);
      const chunks = await sql<{ embedder: string | null }>`
        SELECT embedder FROM search_chunks WHERE note_id = ${id}`.execute(h.db.db);
      expect(chunks.rows.length).toBeGreaterThan(0);
      expect(chunks.rows.every((c) => c.embedder === null)).toBe(true);
      expect(await vecRows(h, id)).toBeOneOf([0, undefined]);
      restore();
      restore = () => {};
      expect(await searchIds(h, tenant.liveKey, 'zymurgy')).toEqual([id]);
    });

    it('a rename while the index is being prepared: the index holds the title the owner set', async (ctx) => {
      const engine = await h.deps.search.engine();
      if (!engine.embedder) ctx.skip(); // The embedder's call is the moment to rename in.
      const tenant = await h.tenant();
      const id = await postNote(h, tenant);
      let renamed = false;
      restore = await swapEmbedder(h, (inner) => async (texts, kind) => {
        if (!renamed) {
          renamed = true;
          const res = await h.request('PATCH', `/v1/notes/${id}`, {
            key: tenant.liveKey,
            body: { title: 'Quokka offsite' },
          });
          expect(res.status).toBe(200);
        }
        return inner.embed(texts, kind);
      });
      expect(await runDueJobs(h.deps)).toBe(1);
      expect(renamed).toBe(true);
      const note = await h.request('GET', `/v1/notes/${id}`, { key: tenant.liveKey });
      expect(note.body).toMatchObject({ status: 'ready', title: 'Quokka offsite' });
      const title = await sql<{ text: string }>`
        SELECT text FROM search_chunks WHERE note_id = ${id} AND kind = 'title'`.execute(h.db.db);
      expect(title.rows.map((r) => r.text)).toEqual(['Quokka offsite']);
      expect(await searchIds(h, tenant.liveKey, 'quokka')).toEqual([id]);
    });
  });
}
