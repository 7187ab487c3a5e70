import { type Selectable, sql } from 'kysely';
import { insertInBatches } from '../../../db/insert-in-batches.ts';
import type { Db, Dialect } from '../../../db/schema.ts';
import type { FanOutState } from '../../../deps.ts';
import { nowIso } from '../../../lib/time.ts';
import { type DeliveriesTable, type WebhooksTable, webhooksDb } from '../webhooks.tables.ts';
import { newDeliveryRow } from './delivery-row.ts';

/** Serializes fan-out across PostgreSQL workers: deliveries are created in event order. */
const FAN_OUT_LOCK_ID = 7_355_610;

const BATCH = 500;
const INSERT_CHUNK = 200;
const ANALYZE_AFTER = 2000;

/** The note an event belongs to: events of one note are delivered to a webhook in the order written. */
function orderKeyExpression(dialect: Dialect) {
  return dialect === 'postgres'
    ? sql<string | null>`CASE WHEN e.type IN ('note.created', 'note.processed', 'note.failed')
        THEN e.payload::json -> 'data' ->> 'id' ELSE e.payload::json -> 'data' ->> 'note_id' END`
    : sql<string | null>`CASE WHEN e.type IN ('note.created', 'note.processed', 'note.failed')
        THEN json_extract(e.payload, '$.data.id') ELSE json_extract(e.payload, '$.data.note_id') END`;
}

/**
 * Turns queued outbox events into deliveries: one per (event, active webhook of the same account and mode,
 * subscribed to the event's type, created before the event). Queue rows are consumed in the transaction
 * that creates the deliveries, so a crash repeats a batch or not at all. Returns the deliveries created.
 */
export async function fanOutEvents(db: Db, dialect: Dialect): Promise<number> {
  let created = 0;
  for (;;) {
    const batch = await fanOutSome(db, dialect, { maxBatches: 1_000_000 });
    created += batch.created;
    if (!batch.more) return created;
  }
}

/**
 * Like fanOutEvents, but stops after `maxBatches` batches of BATCH events: `more` says whether events were
 * left in the queue. The worker alternates batches with deliveries, so the first deliveries of a burst do
 * not wait for the whole burst to be fanned out.
 */
export async function fanOutSome(
  db: Db,
  dialect: Dialect,
  options: {
    maxBatches: number;
    /** Deliveries created by the current burst since its last ANALYZE (the worker's deps.fanOut); this call's
     * own count when not given. */
    burst?: FanOutState;
  },
): Promise<{ created: number; more: boolean }> {
  const counter = options.burst ?? { burstSize: 0 };
  // Most passes find nothing: a plain read avoids a write transaction (and, on SQLite, the write lock).
  const queued = await webhooksDb(db)
    .selectFrom('webhook_event_queue')
    .select('event_seq')
    .limit(1)
    .executeTakeFirst();
  if (!queued) return { created: 0, more: false };
  let created = 0;
  for (let batches = 0; ; batches++) {
    if (batches >= options.maxBatches) return { created, more: true };
    const batch = await db.transaction().execute(async (trx) => {
      const wdb = webhooksDb(trx);
      if (dialect === 'postgres') {
        const lock = await sql<{
          ok: boolean;
        }>`SELECT pg_try_advisory_xact_lock(${FAN_OUT_LOCK_ID}) AS ok`.execute(trx);
        if (!lock.rows[0]?.ok) return { done: true, created: 0 };
      } else {
        // Take SQLite's write lock first (waiting on busy_timeout): a read that later upgrades can fail at once.
        await wdb.deleteFrom('webhook_event_queue').where('event_seq', '<', 0).execute();
      }
      const hasWebhook = sql<boolean>`EXISTS (SELECT 1 FROM webhooks w WHERE w.account_id = e.account_id
        AND w.mode = e.mode AND w.active = 1)`;
      const rows = await wdb
        .selectFrom('webhook_event_queue as q')
        .leftJoin('events as e', 'e.seq', 'q.event_seq')
        .select([
          'q.event_seq',
          'e.id as event_id',
          'e.account_id',
          'e.mode',
          'e.type',
          sql<string | null>`CASE WHEN ${hasWebhook} THEN ${orderKeyExpression(dialect)} END`.as('order_key'),
        ])
        .orderBy('q.event_seq')
        .limit(BATCH)
        .execute();
      if (!rows.length) return { done: true, created: 0 };

      const spaces = [...new Set(rows.filter((r) => r.account_id).map((r) => r.account_id!))];
      const webhooks: Selectable<WebhooksTable>[] = spaces.length
        ? await wdb
            .selectFrom('webhooks')
            .selectAll()
            .where('account_id', 'in', spaces)
            .where('active', '=', 1)
            .orderBy('created_at')
            .orderBy('id')
            .execute()
        : [];
      const subscriptions = webhooks.map((w) => ({ ...w, types: new Set(JSON.parse(w.events) as string[]) }));
      const now = nowIso();
      const deliveries: DeliveriesTable[] = [];
      for (const row of rows) {
        if (!row.event_id || !row.account_id || !row.mode || !row.type) continue;
        for (const w of subscriptions) {
          if (w.account_id !== row.account_id || w.mode !== row.mode || !w.types.has(row.type)) continue;
          if (Number(row.event_seq) <= Number(w.after_event_seq)) continue;
          deliveries.push(
            newDeliveryRow(
              {
                account_id: row.account_id,
                mode: row.mode,
                webhook_id: w.id,
                event_id: row.event_id,
                event_seq: Number(row.event_seq),
                event_type: row.type,
              },
              now,
              { order_key: row.order_key ?? null },
            ),
          );
        }
      }
      const seqs = rows.map((r) => Number(r.event_seq));
      if (dialect === 'postgres') {
        // One statement with one array per column: parsing and binding thousands of scalar parameters is
        // most of the cost of a multi-row VALUES insert on PostgreSQL.
        if (deliveries.length) await insertDeliveriesPostgres(trx, deliveries, now);
        await sql`DELETE FROM webhook_event_queue WHERE event_seq = ANY(${seqs}::bigint[])`.execute(trx);
        return { done: rows.length < BATCH, created: deliveries.length };
      }
      await insertInBatches(
        deliveries,
        (batch) =>
          wdb
            .insertInto('deliveries')
            .values(batch)
            .onConflict((oc) => oc.doNothing())
            .execute(),
        INSERT_CHUNK,
      );
      await wdb.deleteFrom('webhook_event_queue').where('event_seq', 'in', seqs).execute();
      return { done: rows.length < BATCH, created: deliveries.length };
    });
    created += batch.created;
    // A burst of new deliveries leaves PostgreSQL's statistics stale until autovacuum's next round (up to a
    // minute), and the claim query's plan degrades to a sort of every pending delivery meanwhile; refresh them
    // (a sampled, cheap read) every ANALYZE_AFTER new deliveries of a burst. A burst is counted across calls
    // (the worker fans it out one batch at a time, claiming in between) and ends when the queue runs dry:
    // a steady trickle of events is left to autovacuum.
    if (dialect === 'postgres') {
      const burst = counter.burstSize + batch.created;
      counter.burstSize = burst >= ANALYZE_AFTER || batch.done ? 0 : burst;
      if (burst >= ANALYZE_AFTER) await sql`ANALYZE deliveries`.execute(db);
    }
    if (batch.done) return { created, more: false };
  }
}

/** New pending deliveries (all created `now`) in one statement, the varying columns as arrays. */
async function insertDeliveriesPostgres(db: Db, deliveries: DeliveriesTable[], now: string): Promise<void> {
  const column = <K extends keyof DeliveriesTable>(key: K) => deliveries.map((d) => d[key]);
  await sql`INSERT INTO deliveries (id, account_id, mode, webhook_id, event_id, event_seq, event_type, order_key,
      redelivery_of, status, attempts, next_attempt_at, locked_by, locked_until, lease_lost, created_at,
      updated_at, completed_at)
    SELECT u.id, u.account_id, u.mode, u.webhook_id, u.event_id, u.event_seq, u.event_type, u.order_key,
      NULL, 'pending', 0, ${now}, NULL, NULL, 0, ${now}, ${now}, NULL
    FROM unnest(${column('id')}::text[], ${column('account_id')}::text[], ${column('mode')}::text[],
      ${column('webhook_id')}::text[], ${column('event_id')}::text[], ${column('event_seq')}::bigint[],
      ${column('event_type')}::text[], ${column('order_key')}::text[])
      AS u (id, account_id, mode, webhook_id, event_id, event_seq, event_type, order_key)
    ON CONFLICT DO NOTHING`.execute(db);
}
