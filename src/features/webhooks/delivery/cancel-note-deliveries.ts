import type { Db } from '../../../db/schema.ts';
import { nowIso } from '../../../lib/time.ts';
import { webhooksDb } from '../webhooks.tables.ts';

/**
 * Stops the sending of a deleted note's events: deliveries waiting for their turn are cancelled, and events
 * not fanned out yet leave the queue (no delivery is created for them). An attempt already in flight
 * finishes with what it read; every later read of the event gets the redacted payload. Call it in the
 * transaction that deletes the note.
 */
export async function cancelDeliveriesOfEvents(
  db: Db,
  events: readonly { id: string; seq: number }[],
): Promise<void> {
  if (!events.length) return;
  const wdb = webhooksDb(db);
  const now = nowIso();
  for (let i = 0; i < events.length; i += 100) {
    const chunk = events.slice(i, i + 100);
    await wdb
      .updateTable('deliveries')
      .set({ status: 'cancelled', next_attempt_at: null, completed_at: now, updated_at: now })
      .where(
        'event_id',
        'in',
        chunk.map((e) => e.id),
      )
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .execute();
    await wdb
      .deleteFrom('webhook_event_queue')
      .where(
        'event_seq',
        'in',
        chunk.map((e) => e.seq),
      )
      .execute();
  }
}
