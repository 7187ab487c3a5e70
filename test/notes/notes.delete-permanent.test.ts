import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { purgeExpired } from '../../src/features/retention/purge-expired.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { accountRowIds } from '../helpers/account-rows.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, type Tenant, useHarness } from '../helpers/harness.ts';
import { createWebhook, deliverDue, listDeliveries } from '../webhooks/fixtures.ts';
import { useReceiver } from '../webhooks/receiver.ts';

/** A word that occurs in the note's content only: after the delete it must be nowhere in the database. */
const SECRET_WORD = 'Zanzibar';
const TRANSCRIPT = [
  `Ann: The ${SECRET_WORD} acquisition is confidential. We need to decide on the ${SECRET_WORD} price.`,
  `Ben: I will send the ${SECRET_WORD} term sheet to legal by Friday.`,
  `Ann: Important: the ${SECRET_WORD} board meets next week.`,
].join('\n');

/** Every table that holds data of a data space, whole, as text. */
async function everything(h: Harness): Promise<string> {
  const tables = [
    'notes',
    'segments',
    'speakers',
    'highlights',
    'action_items',
    'note_tags',
    'recordings',
    'events',
    'jobs',
    'idempotency_keys',
    'deliveries',
    'delivery_attempts',
    'webhook_event_queue',
    'search_chunks',
  ];
  const out: string[] = [];
  for (const table of tables) {
    const rows = await sql`SELECT * FROM ${sql.table(table)}`.execute(h.db.db);
    out.push(JSON.stringify(rows.rows, (_k, v) => (v instanceof Uint8Array ? '' : v)));
  }
  return out.join('\n');
}

for (const dialect of DIALECTS) {
  describe(`DELETE /v1/notes/:id is permanent (${dialect})`, () => {
    const h = useHarness(dialect, { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
    const { receiver, pathOf, requestsTo } = useReceiver();

    /** A processed note (events delivered to `ok`, still pending for `failing`), created with a key. */
    async function processedNote(t: Tenant) {
      const ok = pathOf('ok');
      const failing = pathOf('failing');
      receiver().respond((r) => (r.path === failing ? { status: 500 } : { status: 200 }));
      const okHook = await createWebhook(h, t.liveKey, { url: `${receiver().url}${ok}` });
      const failingHook = await createWebhook(h, t.liveKey, { url: `${receiver().url}${failing}` });
      const created = await h.request('POST', '/v1/notes', {
        key: t.liveKey,
        headers: { 'idempotency-key': `delete-${t.accountId}` },
        body: { title: `${SECRET_WORD} deal`, transcript: TRANSCRIPT, tags: [SECRET_WORD.toLowerCase()] },
      });
      expect(created.status).toBe(202);
      await runDueJobs(h.deps);
      await deliverDue(h);
      expect(requestsTo(ok).some((r) => r.body.includes(SECRET_WORD))).toBe(true);
      return { id: created.body.id as string, okHook, failingHook, ok };
    }

    it('leaves no copy of the content: events redacted, pending deliveries cancelled, key answer gone', async () => {
      const t = await h.tenant();
      const { id, okHook, failingHook } = await processedNote(t);
      expect(await everything(h)).toContain(SECRET_WORD);
      const pending = await listDeliveries(h, t.liveKey, failingHook.id);
      expect(pending.length).toBeGreaterThan(0);
      expect(pending.every((d) => d.status === 'pending')).toBe(true);

      const res = await h.request('DELETE', `/v1/notes/${id}`, { key: t.liveKey });
      expect(res.status).toBe(200);

      expect(await everything(h)).not.toContain(SECRET_WORD);
      const events = await h.db.db
        .selectFrom('events')
        .select(['type', 'payload'])
        .where('note_id', '=', id)
        .execute();
      expect(events.length).toBeGreaterThanOrEqual(3);
      for (const e of events) {
        const body = JSON.parse(e.payload);
        expect(body.type).toBe(e.type);
        expect(body.data.deleted).toBe(true);
        expect(Object.keys(body.data).sort()).toEqual(
          e.type.startsWith('note.') ? ['deleted', 'id'] : ['deleted', 'id', 'note_id'],
        );
      }
      expect((await listDeliveries(h, t.liveKey, failingHook.id)).map((d) => d.status)).toEqual(
        pending.map(() => 'cancelled'),
      );
      expect((await listDeliveries(h, t.liveKey, okHook.id)).every((d) => d.status === 'succeeded')).toBe(
        true,
      );

      // The key stays used (no second note), but its replay no longer hands out the deleted note.
      const replay = await h.request('POST', '/v1/notes', {
        key: t.liveKey,
        headers: { 'idempotency-key': `delete-${t.accountId}` },
        body: { title: `${SECRET_WORD} deal`, transcript: TRANSCRIPT, tags: [SECRET_WORD.toLowerCase()] },
      });
      expect(replay.status).toBe(404);
      expect(replay.body.error.code).toBe('resource_not_found');
      expect(replay.text).not.toContain(SECRET_WORD);
      expect(await accountRowIds(h.db.db, 'notes', t.accountId)).toEqual([]);
    });

    it.runIf(dialect === 'sqlite')(
      'overwrites deleted content in the file (secure_delete, FTS5 secure-delete)',
      async () => {
        const pragma = await sql<{ secure_delete: number }>`PRAGMA secure_delete`.execute(h.db.db);
        expect(Number(pragma.rows[0]!.secure_delete)).toBe(1);
        for (const fts of ['notes_fts', 'search_chunks_fts']) {
          const config = await sql<{
            v: number;
          }>`SELECT v FROM ${sql.table(`${fts}_config`)} WHERE k = 'secure-delete'`.execute(h.db.db);
          expect(Number(config.rows[0]?.v)).toBe(1);
        }
      },
    );

    it('redelivering a delivered event of a deleted note sends its ids only', async () => {
      const t = await h.tenant();
      const { id, okHook, ok } = await processedNote(t);
      const delivered = await listDeliveries(h, t.liveKey, okHook.id);
      const processed = delivered.find((d) => d.event_type === 'note.processed')!;
      expect((await h.request('DELETE', `/v1/notes/${id}`, { key: t.liveKey })).status).toBe(200);
      const before = requestsTo(ok).length;
      const res = await h.request('POST', `/v1/webhooks/${okHook.id}/deliveries/${processed.id}/redeliver`, {
        key: t.liveKey,
      });
      expect(res.status).toBe(202);
      await deliverDue(h);
      const resent = requestsTo(ok).slice(before);
      expect(resent).toHaveLength(1);
      expect(resent[0]!.body).not.toContain(SECRET_WORD);
      expect(JSON.parse(resent[0]!.body)).toMatchObject({
        type: 'note.processed',
        data: { id, deleted: true },
      });
    });

    it('the retention sweep purges old events, finished deliveries and idempotency keys', async () => {
      const t = await h.tenant();
      const { failingHook } = await processedNote(t);
      const mine = () =>
        Promise.all([
          h.db.db.selectFrom('events').select('id').where('account_id', '=', t.accountId).execute(),
          h.db.db
            .selectFrom('idempotency_keys')
            .select('key')
            .where('account_id', '=', t.accountId)
            .execute(),
          listDeliveries(h, t.liveKey, failingHook.id),
        ]);
      const [events] = await mine();
      // Nothing is old yet.
      await purgeExpired(h.db.db, h.deps.config.retention);
      expect((await mine())[0]).toHaveLength(events.length);
      // A month and a day later: keys, finished deliveries and events without a pending delivery are gone.
      await purgeExpired(h.db.db, h.deps.config.retention, Date.now() + 31 * 86_400_000);
      const [eventsAfter, keysAfter, pendingAfter] = await mine();
      expect(keysAfter).toEqual([]);
      // The failing webhook's deliveries are still pending: their events stay until they are sent or given up.
      expect(pendingAfter.length).toBeGreaterThan(0);
      expect(pendingAfter.every((d) => d.status === 'pending')).toBe(true);
      expect(eventsAfter.map((e) => e.id).sort()).toEqual(
        [...new Set(pendingAfter.map((d) => d.event_id))].sort(),
      );
      const attempts = await sql<{ n: number }>`SELECT count(*) AS n FROM delivery_attempts a
        JOIN deliveries d ON d.id = a.delivery_id WHERE d.account_id = ${t.accountId} AND d.status <> 'pending'`.execute(
        h.db.db,
      );
      expect(Number(attempts.rows[0]!.n)).toBe(0);
    });
  });
}
