import { sql } from 'kysely';
import type { Db, Dialect } from '../../../db/schema.ts';
import { webhooksDb } from '../webhooks.tables.ts';
import { ASYNC_COMMIT, CHUNK, type DeliveryRow, type DeliveryTarget } from './delivery-rows.ts';

/** What a claim takes: up to `limit` due deliveries, fairly across accounts. */
export interface ClaimRequest {
  workerId: string;
  now: string;
  lockedUntil: string;
  limit: number;
  /**
   * At most `cap` attempts of one account and mode in flight in this worker, counting the `busy` ones it already
   * has (keyed by spaceKey). Without it, no cap (still round robin).
   */
  perSpace?: { cap: number; busy: ReadonlyMap<string, number> };
}

/** The key of an account's data space (account and mode) in ClaimRequest.perSpace.busy. */
export const spaceKey = (accountId: string, mode: string) => `${accountId}/${mode}`;

const MODES = ['live', 'test'] as const;

/** How many deliveries of a space one claim may take. */
function roomOf(claim: ClaimRequest, accountId: string, mode: string): number {
  if (!claim.perSpace) return claim.limit;
  const busy = claim.perSpace.busy.get(spaceKey(accountId, mode)) ?? 0;
  return Math.max(0, Math.min(claim.limit, claim.perSpace.cap - busy));
}

/**
 * The accounts that have pending deliveries, by a skip scan of `deliveries_space_due` (one index seek per
 * account, whatever the size of an account's backlog).
 */
const ACCOUNTS_WITH_PENDING = sql`WITH RECURSIVE a(account_id) AS (
    SELECT (SELECT account_id FROM deliveries WHERE status = 'pending' ORDER BY account_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.account_id FROM deliveries d WHERE d.status = 'pending' AND d.account_id > a.account_id
      ORDER BY d.account_id LIMIT 1)
    FROM a WHERE a.account_id IS NOT NULL
  )`;

/**
 * A delivery `d` is due: pending, its time has come, not leased (or its lease expired: the worker died), and no
 * earlier delivery of the same webhook and note still pending (events of one note go out in order).
 */
const isDue = (now: string) => sql`d.status = 'pending' AND d.next_attempt_at <= ${now}
  AND (d.locked_until IS NULL OR d.locked_until < ${now})
  AND NOT EXISTS (SELECT 1 FROM deliveries p WHERE p.webhook_id = d.webhook_id AND p.order_key = d.order_key
    AND p.status = 'pending' AND p.event_seq < d.event_seq)`;

/**
 * SQLite: the ids to claim, round robin across accounts and modes: the first due delivery of every space (oldest
 * first), then the second of each, and so on, each space up to its room. One small query per space with pending
 * deliveries, in process (no round trips).
 */
async function fairDueIdsSqlite(db: Db, claim: ClaimRequest): Promise<string[]> {
  const accounts = await sql<{ account_id: string }>`${ACCOUNTS_WITH_PENDING}
    SELECT account_id FROM a WHERE account_id IS NOT NULL`.execute(db);
  const picked: { id: string; rank: number; at: string; seq: number }[] = [];
  for (const { account_id } of accounts.rows) {
    for (const mode of MODES) {
      const room = roomOf(claim, account_id, mode);
      if (room <= 0) continue;
      const rows = await sql<{ id: string; next_attempt_at: string; event_seq: number }>`
        SELECT d.id, d.next_attempt_at, d.event_seq FROM deliveries d
        WHERE d.account_id = ${account_id} AND d.mode = ${mode} AND ${isDue(claim.now)}
        ORDER BY d.next_attempt_at, d.event_seq LIMIT ${room}`.execute(db);
      for (const [rank, r] of rows.rows.entries())
        picked.push({ id: r.id, rank, at: r.next_attempt_at, seq: Number(r.event_seq) });
    }
  }
  picked.sort((a, b) => a.rank - b.rank || (a.at < b.at ? -1 : a.at > b.at ? 1 : a.seq - b.seq));
  return picked.slice(0, claim.limit).map((p) => p.id);
}

/**
 * PostgreSQL: the same choice in one statement. Each space's due deliveries are locked with SKIP LOCKED (rows
 * other workers are claiming are passed over) in a LATERAL subquery limited to the space's room; the outer query
 * ranks them round robin.
 */
function fairDueIdsPostgres(claim: ClaimRequest) {
  const busy = [...(claim.perSpace?.busy ?? new Map<string, number>())].filter(([, n]) => n > 0);
  const busyRows = sql.join(
    [['', '', 0] as const, ...busy.map(([key, n]) => [...splitSpaceKey(key), n] as const)].map(
      ([account, mode, n]) => sql`(CAST(${account} AS TEXT), CAST(${mode} AS TEXT), CAST(${n} AS INTEGER))`,
    ),
  );
  const cap = claim.perSpace?.cap ?? claim.limit;
  return sql`ARRAY(${ACCOUNTS_WITH_PENDING},
    busy(account_id, mode, n) AS (VALUES ${busyRows}),
    s AS (
      SELECT a.account_id, m.mode, LEAST(${claim.limit}::int, GREATEST(0, ${cap}::int - COALESCE(
        (SELECT SUM(b.n) FROM busy b WHERE b.account_id = a.account_id AND b.mode = m.mode), 0)::int)) AS room
      FROM a CROSS JOIN (VALUES ('live'), ('test')) AS m(mode)
      WHERE a.account_id IS NOT NULL
    ),
    picked AS (
      SELECT x.id, x.next_attempt_at, x.event_seq,
        row_number() OVER (PARTITION BY s.account_id, s.mode ORDER BY x.next_attempt_at, x.event_seq) AS rn
      FROM s CROSS JOIN LATERAL (
        SELECT d.id, d.next_attempt_at, d.event_seq FROM deliveries d
        WHERE d.account_id = s.account_id AND d.mode = s.mode AND ${isDue(claim.now)}
        ORDER BY d.next_attempt_at, d.event_seq
        LIMIT s.room
        FOR UPDATE OF d SKIP LOCKED
      ) x
      WHERE s.room > 0
    )
    SELECT id FROM picked ORDER BY rn, next_attempt_at, event_seq LIMIT ${claim.limit})`;
}

function splitSpaceKey(key: string): [string, string] {
  const at = key.lastIndexOf('/');
  return [key.slice(0, at), key.slice(at + 1)];
}

/**
 * The claim statement of deliveriesRepo.claim: takes the chosen deliveries (fairDueIds*), counts the attempt and
 * sets the lease. SQLite is given the ids; PostgreSQL chooses them in the same statement.
 */
function claimDue(db: Db, dialect: Dialect, claim: ClaimRequest, ids?: string[]) {
  return webhooksDb(db)
    .updateTable('deliveries')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      // Evaluated on the old row: a lease that was still set belonged to a worker that never reported.
      lease_lost:
        dialect === 'postgres'
          ? sql<number>`CASE WHEN NOT ${ASYNC_COMMIT} OR locked_until IS NULL THEN 0 ELSE 1 END`
          : sql<number>`CASE WHEN locked_until IS NULL THEN 0 ELSE 1 END`,
      locked_by: claim.workerId,
      locked_until: claim.lockedUntil,
      updated_at: claim.now,
    }))
    .where((eb) =>
      // PostgreSQL: `id = ANY(ARRAY(…))` runs the subquery once and updates through the primary key.
      dialect === 'postgres'
        ? sql<boolean>`id = ANY(${fairDueIdsPostgres(claim)})`
        : eb('id', 'in', ids ?? []),
    )
    .returningAll();
}

/** Claimed deliveries with what their attempts need. */
export interface Claimed {
  rows: DeliveryRow[];
  /** By delivery id; absent when the webhook was deleted meanwhile. */
  targets: Map<string, DeliveryTarget>;
}

/** What a claim sends with: the event's bytes and its webhook's target (events as e, webhooks as w). */
const TARGET_COLUMNS = [
  'e.payload',
  'w.url',
  'w.secret',
  'w.active',
  'w.previous_secret',
  'w.previous_secret_expires_at',
] as const;

const LOST_ATTEMPT_ERROR =
  'The worker stopped before recording the outcome of this attempt (its lease expired); the receiver may or may not have received it.';

/**
 * Claims due deliveries and loads their targets. PostgreSQL: one statement (the claiming UPDATE in a CTE,
 * joined to the webhook and the event). SQLite: the claim, then a read of the targets (no round trips).
 */
export async function claimWithTargets(db: Db, dialect: Dialect, claim: ClaimRequest): Promise<Claimed> {
  if (claim.limit <= 0) return { rows: [], targets: new Map() };
  let rows: DeliveryRow[];
  let targets: DeliveryTarget[];
  if (dialect === 'postgres') {
    const joined = await webhooksDb(db)
      .with('c', () => claimDue(db, dialect, claim))
      .selectFrom('c')
      .leftJoin('webhooks as w', 'w.id', 'c.webhook_id')
      .leftJoin('events as e', 'e.seq', 'c.event_seq')
      .selectAll('c')
      .select(TARGET_COLUMNS)
      .execute();
    rows = [];
    targets = [];
    for (const {
      payload,
      url,
      secret,
      active,
      previous_secret,
      previous_secret_expires_at,
      ...row
    } of joined) {
      rows.push(row as DeliveryRow);
      if (url !== null && active !== null) {
        targets.push({
          id: row.id,
          payload,
          url,
          secret,
          active,
          previous_secret,
          previous_secret_expires_at,
        });
      }
    }
  } else {
    const ids = await fairDueIdsSqlite(db, claim);
    rows = ids.length ? await claimDue(db, dialect, claim, ids).execute() : [];
    targets = await loadTargets(
      db,
      rows.map((r) => r.id),
    );
  }
  // Started in due order: oldest first, then event order.
  rows.sort((a, b) =>
    a.next_attempt_at === b.next_attempt_at
      ? Number(a.event_seq) - Number(b.event_seq)
      : (a.next_attempt_at ?? '') < (b.next_attempt_at ?? '')
        ? -1
        : 1,
  );
  // A worker died holding these: log the attempt whose outcome is unknown (before this claim's own attempt).
  const lost = rows.filter((r) => Number(r.lease_lost) === 1 && Number(r.attempts) > 1);
  if (lost.length) {
    await webhooksDb(db)
      .insertInto('delivery_attempts')
      .values(
        lost.map((r) => ({
          delivery_id: r.id,
          attempt: Number(r.attempts) - 1,
          started_at: claim.now,
          completed_at: null,
          duration_ms: null,
          status_code: null,
          error: LOST_ATTEMPT_ERROR,
          response_body: null,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
  return { rows, targets: new Map(targets.map((t) => [t.id, t])) };
}

/** Event bytes and webhook target of deliveries (a deleted webhook's deliveries are absent). */
async function loadTargets(db: Db, ids: string[]): Promise<DeliveryTarget[]> {
  const out: DeliveryTarget[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) {
    out.push(
      ...(await webhooksDb(db)
        .selectFrom('deliveries as d')
        .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
        .leftJoin('events as e', 'e.seq', 'd.event_seq')
        .select(['d.id', ...TARGET_COLUMNS])
        .where('d.id', 'in', ids.slice(i, i + CHUNK))
        .execute()),
    );
  }
  return out;
}
