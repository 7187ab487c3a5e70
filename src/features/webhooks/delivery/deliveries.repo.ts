import { type ExpressionBuilder, type Selectable, sql } from 'kysely';
import type { Database, Db, Dialect } from '../../../db/schema.ts';
import { type DeliveriesTable, type WebhookTables, webhooksDb } from '../webhooks.tables.ts';

export type DeliveryRow = Selectable<DeliveriesTable>;

/** One claim of a delivery: only the holder may record the attempt's outcome (a fencing token). */
export interface DeliveryLease {
  id: string;
  workerId: string;
  attempt: number;
}

/** What an attempt needs besides the delivery row: the stored event bytes and the webhook's target. */
export interface DeliveryTarget {
  id: string;
  payload: string | null;
  url: string;
  secret: string | null;
  active: number;
}

/** An attempt's row in the log. */
export interface AttemptRecord {
  started_at: string;
  completed_at: string | null;
  duration_ms: number | null;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
}

/** The outcome of one attempt (or of a claim that was not sent: cancelled, given up). */
export interface Outcome {
  lease: Omit<DeliveryLease, 'workerId'>;
  next:
    | { status: 'succeeded' | 'failed' | 'cancelled'; now: string }
    | { status: 'pending'; now: string; nextAttemptAt: string };
  attempt: AttemptRecord | null;
  /** The receiver answered 410: deactivate this webhook. */
  deactivateWebhook?: string;
}

/** Rows per statement, well under SQLite's and PostgreSQL's bind parameter limits. */
const CHUNK = 100;

type Eb = ExpressionBuilder<Database & WebhookTables, 'deliveries'>;

const holds = (lease: DeliveryLease) => (eb: Eb) =>
  eb.and([
    eb('id', '=', lease.id),
    eb('status', '=', 'pending'),
    eb('locked_by', '=', lease.workerId),
    eb('attempts', '=', lease.attempt),
  ]);

/**
 * Runs the worker's own bookkeeping (claims, outcomes) in a transaction. On PostgreSQL it commits without
 * waiting for the WAL flush (synchronous_commit = off): a database crash can forget the last moments of
 * bookkeeping, which only makes deliveries be sent again (at-least-once holds; events and fan-out keep
 * synchronous commits), and the worker is no longer bound by one disk flush per claim or batch.
 */
async function bookkeeping<T>(db: Db, dialect: Dialect, fn: (trx: Db) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    if (dialect === 'postgres') await sql`SET LOCAL synchronous_commit = off`.execute(trx);
    return fn(trx);
  });
}

/** The claim statement of deliveriesRepo.claim. */
function claimDue(
  db: Db,
  dialect: Dialect,
  claim: { workerId: string; now: string; lockedUntil: string; limit: number },
): Promise<DeliveryRow[]> {
  return webhooksDb(db)
    .updateTable('deliveries')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      // Evaluated on the old row: a lease that was still set belonged to a worker that never reported.
      lease_lost: sql<number>`CASE WHEN locked_until IS NULL THEN 0 ELSE 1 END`,
      locked_by: claim.workerId,
      locked_until: claim.lockedUntil,
      updated_at: claim.now,
    }))
    .where((eb) => {
      const due = eb
        .selectFrom('deliveries as d')
        .select('d.id')
        .where('d.status', '=', 'pending')
        .where('d.next_attempt_at', '<=', claim.now)
        .where((w) => w.or([w('d.locked_until', 'is', null), w('d.locked_until', '<', claim.now)]))
        .where((w) =>
          w.not(
            w.exists(
              w
                .selectFrom('deliveries as p')
                .select(sql<number>`1`.as('one'))
                .whereRef('p.webhook_id', '=', 'd.webhook_id')
                .whereRef('p.order_key', '=', 'd.order_key')
                .where('p.status', '=', 'pending')
                .whereRef('p.event_seq', '<', 'd.event_seq'),
            ),
          ),
        )
        .orderBy('d.next_attempt_at')
        .orderBy('d.event_seq')
        .limit(claim.limit);
      // PostgreSQL: `id = ANY(ARRAY(…))` runs the subquery once and updates through the primary key; with
      // `id IN (…)` the planner may hash-join against a scan of the whole table on every claim.
      return dialect === 'postgres'
        ? sql<boolean>`id = ANY(ARRAY(${due.forUpdate().skipLocked()}))`
        : eb('id', 'in', due);
    })
    .returningAll()
    .execute();
}

export const deliveriesRepo = {
  /**
   * Claims up to `limit` due deliveries in one statement. A delivery is due when it is pending, its time has
   * come, it is not leased (or its lease expired: the worker died) and no earlier delivery of the same
   * webhook and note is still pending (events of one note go out in order). PostgreSQL skips rows that
   * other workers are claiming (FOR UPDATE SKIP LOCKED); SQLite has one writer at a time.
   */
  claim(
    db: Db,
    dialect: Dialect,
    claim: { workerId: string; now: string; lockedUntil: string; limit: number },
  ): Promise<DeliveryRow[]> {
    // On SQLite the single statement is its own transaction already.
    return dialect === 'postgres'
      ? bookkeeping(db, dialect, (trx) => claimDue(trx, dialect, claim))
      : claimDue(db, dialect, claim);
  },

  /** Event bytes and webhook target of claimed deliveries (a deleted webhook's deliveries are absent). */
  targets: async (db: Db, ids: string[]): Promise<DeliveryTarget[]> =>
    ids.length
      ? webhooksDb(db)
          .selectFrom('deliveries as d')
          .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
          .leftJoin('events as e', 'e.seq', 'd.event_seq')
          .select(['d.id', 'e.payload', 'w.url', 'w.secret', 'w.active'])
          .where('d.id', 'in', ids)
          .execute()
      : [],

  /**
   * Records the outcomes of many attempts of one worker in one transaction, each only while its lease is
   * held: the delivery's next state, the attempt row, and for a 410 the webhook's deactivation (with its
   * waiting deliveries cancelled). Returns the ids whose lease was held (the others were taken over by another
   * worker after their lease expired, or their webhook was deleted).
   */
  async recordOutcomes(
    db: Db,
    dialect: Dialect,
    workerId: string,
    outcomes: Outcome[],
  ): Promise<Set<string>> {
    if (!outcomes.length) return new Set();
    return bookkeeping(db, dialect, async (trx) => {
      const wdb = webhooksDb(trx);
      const held = new Set<string>();
      // The common case, success, in one statement per chunk.
      const simple = outcomes.filter((o) => o.next.status === 'succeeded' && !o.deactivateWebhook);
      for (let i = 0; i < simple.length; i += CHUNK) {
        const chunk = simple.slice(i, i + CHUNK);
        const now = chunk
          .map((o) => o.next.now)
          .sort()
          .at(-1)!;
        const rows = await wdb
          .updateTable('deliveries')
          .set({
            status: 'succeeded',
            next_attempt_at: null,
            completed_at: now,
            locked_by: null,
            locked_until: null,
            lease_lost: 0,
            updated_at: now,
          })
          .where('status', '=', 'pending')
          .where('locked_by', '=', workerId)
          .where(
            'id',
            'in',
            chunk.map((o) => o.lease.id),
          )
          .where(
            sql<boolean>`(id, attempts) IN (VALUES ${sql.join(
              chunk.map((o) => sql`(${o.lease.id}, CAST(${o.lease.attempt} AS INTEGER))`),
            )})`,
          )
          .returning('id')
          .execute();
        for (const r of rows) held.add(r.id);
      }
      for (const o of outcomes.filter((x) => !simple.includes(x))) {
        const { next } = o;
        const result = await wdb
          .updateTable('deliveries')
          .set({
            status: next.status,
            next_attempt_at: next.status === 'pending' ? next.nextAttemptAt : null,
            completed_at: next.status === 'pending' ? null : next.now,
            locked_by: null,
            locked_until: null,
            lease_lost: 0,
            updated_at: next.now,
          })
          .where(holds({ ...o.lease, workerId }))
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) continue;
        held.add(o.lease.id);
        if (o.deactivateWebhook) {
          await wdb
            .updateTable('webhooks')
            .set({ active: 0, updated_at: next.now })
            .where('id', '=', o.deactivateWebhook)
            .execute();
          await wdb
            .updateTable('deliveries')
            .set({ status: 'cancelled', next_attempt_at: null, completed_at: next.now, updated_at: next.now })
            .where('webhook_id', '=', o.deactivateWebhook)
            .where('status', '=', 'pending')
            .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', next.now)]))
            .execute();
        }
      }
      const attempts = outcomes
        .filter((o) => o.attempt && held.has(o.lease.id))
        .map((o) => ({ delivery_id: o.lease.id, attempt: o.lease.attempt, ...o.attempt! }));
      for (let i = 0; i < attempts.length; i += CHUNK) {
        await wdb
          .insertInto('delivery_attempts')
          .values(attempts.slice(i, i + CHUNK))
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
      return held;
    });
  },

  /** Logs the attempt a dead worker started but never recorded (its outcome is unknown). */
  recordLostAttempt: (db: Db, deliveryId: string, attempt: number, now: string) =>
    webhooksDb(db)
      .insertInto('delivery_attempts')
      .values({
        delivery_id: deliveryId,
        attempt,
        started_at: now,
        completed_at: null,
        duration_ms: null,
        status_code: null,
        error:
          'The worker stopped before recording the outcome of this attempt (its lease expired); the receiver may or may not have received it.',
        response_body: null,
      })
      .onConflict((oc) => oc.doNothing())
      .execute(),
};
