import { sql } from 'kysely';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/schema.ts';
import { toIso } from '../../lib/time.ts';
import { purgeKeys } from '../idempotency/idempotency.repo.ts';
import { purgeSignInRecords } from '../users/sign-in-limits.ts';
import { SESSION_IDLE_MS } from '../users/users.service.ts';
import { webhooksDb } from '../webhooks/webhooks.tables.ts';

export interface PurgeCounts {
  idempotencyKeys: number;
  deliveries: number;
  events: number;
  /** Sign-in counters of past windows, long-unused known addresses and ended dashboard sessions. */
  signIns: number;
}

/**
 * Deletes what is kept only for replay and audit once it is older than its retention (RETENTION_*):
 * Idempotency-Key answers, finished webhook deliveries with their attempt log, and outbox events; also sign-in
 * counters and sessions that can no longer matter (sign-in-limits.ts, ended sessions). An event
 * stays while a delivery of it is pending or it waits to be fanned out; finished deliveries of an event that
 * goes are removed with it (a redelivery needs the event). Idempotent; safe to run from several processes.
 */
export async function purgeExpired(
  db: Db,
  retention: Config['retention'],
  now = Date.now(),
): Promise<PurgeCounts> {
  const wdb = webhooksDb(db);
  const idempotencyKeys = await purgeKeys(db, retention.idempotencyMs, now);
  const eventCutoff = toIso(now - retention.eventsMs);
  const finished = await wdb
    .deleteFrom('deliveries')
    .where('status', '<>', 'pending')
    .where((eb) =>
      eb.or([
        eb('completed_at', '<', toIso(now - retention.deliveriesMs)),
        eb('event_id', 'in', eb.selectFrom('events').select('id').where('created_at', '<', eventCutoff)),
      ]),
    )
    .executeTakeFirst();
  // Any delivery left of an old event is pending (finished ones went above): the event stays until it is sent.
  const events = await sql`DELETE FROM events WHERE created_at < ${eventCutoff}
    AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = events.id)
    AND NOT EXISTS (SELECT 1 FROM webhook_event_queue q WHERE q.event_seq = events.seq)`.execute(db);
  const sessions = await db
    .deleteFrom('sessions')
    .where((eb) =>
      eb.or([eb('expires_at', '<=', toIso(now)), eb('last_seen_at', '<=', toIso(now - SESSION_IDLE_MS))]),
    )
    .executeTakeFirst();
  const signIns = (await purgeSignInRecords(db, now)) + Number(sessions.numDeletedRows);
  return {
    idempotencyKeys,
    signIns,
    deliveries: Number(finished.numDeletedRows),
    events: Number(events.numAffectedRows ?? 0),
  };
}
