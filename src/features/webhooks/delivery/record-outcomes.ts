import { sql } from 'kysely';
import { insertInBatches } from '../../../db/insert-in-batches.ts';
import type { Db, Dialect } from '../../../db/schema.ts';
import { webhooksDb } from '../webhooks.tables.ts';
import { ASYNC_COMMIT, CHUNK, type Outcome } from './delivery-rows.ts';

/**
 * Records outcomes of one worker, each only while its lease is held (still pending, locked by this worker,
 * same attempt number): one UPDATE … FROM (VALUES …) per chunk for the delivery states, one INSERT for the
 * attempt rows. Returns the ids whose lease was held.
 */
export async function recordOutcomesIn(
  trx: Db,
  dialect: Dialect,
  workerId: string,
  outcomes: Outcome[],
): Promise<Set<string>> {
  const wdb = webhooksDb(trx);
  const held = new Set<string>();
  if (dialect === 'postgres') {
    for (let i = 0; i < outcomes.length; i += CHUNK) {
      for (const id of await recordPostgres(trx, workerId, outcomes.slice(i, i + CHUNK))) held.add(id);
    }
    return held;
  }
  for (let i = 0; i < outcomes.length; i += CHUNK) {
    const chunk = outcomes.slice(i, i + CHUNK);
    // Columns: id, attempt, status, next_attempt_at, completed_at, updated_at. The first row's casts type
    // the VALUES list on PostgreSQL.
    const values = sql.join(
      chunk.map(
        ({ lease, next }) =>
          sql`(CAST(${lease.id} AS TEXT), CAST(${lease.attempt} AS INTEGER), CAST(${next.status} AS TEXT), CAST(${
            next.status === 'pending' ? next.nextAttemptAt : null
          } AS TEXT), CAST(${next.status === 'pending' ? null : next.now} AS TEXT), CAST(${next.now} AS TEXT))`,
      ),
    );
    const result = await sql<{ id: string }>`UPDATE deliveries SET status = v.column3,
        next_attempt_at = v.column4, completed_at = v.column5, updated_at = v.column6,
        locked_by = NULL, locked_until = NULL, lease_lost = 0
      FROM (VALUES ${values}) AS v
      WHERE deliveries.id = v.column1 AND deliveries.attempts = v.column2
        AND deliveries.status = 'pending' AND deliveries.locked_by = ${workerId}
      RETURNING deliveries.id`.execute(trx);
    for (const r of result.rows) held.add(r.id);
  }
  const attempts = outcomes
    .filter((o) => o.attempt && held.has(o.lease.id))
    .map((o) => ({ delivery_id: o.lease.id, attempt: o.lease.attempt, ...o.attempt! }));
  await insertInBatches(
    attempts,
    (batch) =>
      wdb
        .insertInto('delivery_attempts')
        .values(batch)
        .onConflict((oc) => oc.doNothing())
        .execute(),
    CHUNK,
  );
  return held;
}

/**
 * PostgreSQL: the delivery states and their attempt rows of up to CHUNK outcomes in one statement (one round
 * trip, its own transaction). Returns the ids whose lease was held.
 */
async function recordPostgres(db: Db, workerId: string, outcomes: Outcome[]): Promise<string[]> {
  const rows = sql.join(
    outcomes.map(({ lease, next, attempt }) => {
      const a = attempt;
      return sql`(CAST(${lease.id} AS TEXT), CAST(${lease.attempt} AS INTEGER), CAST(${next.status} AS TEXT),
        CAST(${next.status === 'pending' ? next.nextAttemptAt : null} AS TEXT),
        CAST(${next.status === 'pending' ? null : next.now} AS TEXT), CAST(${next.now} AS TEXT),
        CAST(${a !== null} AS BOOLEAN), CAST(${a?.started_at ?? null} AS TEXT), CAST(${a?.completed_at ?? null} AS TEXT),
        CAST(${a?.duration_ms ?? null} AS INTEGER), CAST(${a?.status_code ?? null} AS INTEGER),
        CAST(${a?.error ?? null} AS TEXT), CAST(${a?.response_body ?? null} AS TEXT))`;
    }),
  );
  const result = await sql<{ id: string }>`WITH
    v (id, attempt, status, next_attempt_at, completed_at, now, has_attempt, a_started_at, a_completed_at,
       a_duration_ms, a_status_code, a_error, a_response_body) AS (VALUES ${rows}),
    u AS (
      UPDATE deliveries AS d SET status = v.status, next_attempt_at = v.next_attempt_at,
        completed_at = v.completed_at, updated_at = v.now, locked_by = NULL, locked_until = NULL,
        lease_lost = CASE WHEN ${ASYNC_COMMIT} THEN 0 ELSE 0 END
      FROM v
      WHERE d.id = v.id AND d.attempts = v.attempt AND d.status = 'pending' AND d.locked_by = ${workerId}
      RETURNING d.id
    ),
    a AS (
      INSERT INTO delivery_attempts (delivery_id, attempt, started_at, completed_at, duration_ms, status_code,
        error, response_body)
      SELECT v.id, v.attempt, v.a_started_at, v.a_completed_at, v.a_duration_ms, v.a_status_code, v.a_error,
        v.a_response_body
      FROM v JOIN u ON u.id = v.id
      WHERE v.has_attempt
      ON CONFLICT DO NOTHING
    )
    SELECT id FROM u`.execute(db);
  return result.rows.map((r) => r.id);
}
