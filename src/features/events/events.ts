import type { Db, Mode } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';

/**
 * The event types a webhook can subscribe to: the four of the spec, in the order a recording emits them, then
 * `note.failed` (processing gave up: the note in list form plus `failure_reason`).
 */
export const EVENT_TYPES = [
  'recording.ready',
  'note.created',
  'action_item.created',
  'note.processed',
  'note.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Sent by `POST /v1/webhooks/:id/test` to one webhook only; not subscribable, never fanned out. */
export const TEST_EVENT_TYPE = 'webhook.test';
/** Every type an outbox event (and so a delivery) can have. */
export type AnyEventType = EventType | typeof TEST_EVENT_TYPE;

/** The body every delivery POSTs: `{id, type, created_at, data}`. */
export interface EventBody {
  id: string;
  type: EventType;
  created_at: string;
  data: unknown;
}

/**
 * Writes an event to the outbox. Call it with the transaction that makes the change, so the event exists
 * exactly when the change does.
 */
export async function recordEvent(
  db: Db,
  space: { accountId: string; mode: Mode },
  type: EventType,
  data: unknown,
): Promise<EventBody> {
  const body: EventBody = { id: newId('event'), type, created_at: nowIso(), data };
  await db
    .insertInto('events')
    .values({
      id: body.id,
      account_id: space.accountId,
      mode: space.mode,
      type,
      payload: JSON.stringify(body),
      created_at: body.created_at,
      note_id: noteIdOf(type, data),
    })
    .execute();
  return body;
}

/** The note an event is about: `note.*` events carry the note itself, the others name it in `note_id`. */
export function noteIdOf(type: EventType, data: unknown): string | null {
  const fields = (data ?? {}) as { id?: unknown; note_id?: unknown };
  const id = type.startsWith('note.') ? fields.id : fields.note_id;
  return typeof id === 'string' && id !== '' ? id : null;
}

/**
 * Replaces the payloads of a deleted note's events by their ids: `data` keeps `id` (and `note_id`) and says
 * `deleted: true`; no title, transcript, summary, action item text or tag remains. A redelivery then sends
 * the ids only. Call it in the transaction that deletes the note. Returns the events, for the deliveries.
 */
export async function redactNoteEvents(db: Db, noteId: string): Promise<{ id: string; seq: number }[]> {
  const rows = await db
    .selectFrom('events')
    .select(['id', 'seq', 'type', 'payload'])
    .where('note_id', '=', noteId)
    .execute();
  for (const row of rows) {
    const body = JSON.parse(row.payload) as EventBody;
    const data = (body.data ?? {}) as { id?: unknown; note_id?: unknown };
    const redacted: EventBody = {
      id: body.id,
      type: body.type,
      created_at: body.created_at,
      data: {
        ...(typeof data.id === 'string' ? { id: data.id } : {}),
        ...(typeof data.note_id === 'string' ? { note_id: data.note_id } : {}),
        deleted: true,
      },
    };
    await db
      .updateTable('events')
      .set({ payload: JSON.stringify(redacted) })
      .where('id', '=', row.id)
      .execute();
  }
  return rows.map((r) => ({ id: r.id, seq: Number(r.seq) }));
}
