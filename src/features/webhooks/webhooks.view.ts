import type { AnyEventType, EventType } from '../events/events.ts';
import type { DeliveriesTable, DeliveryAttemptsTable, WebhooksTable } from './webhooks.tables.ts';

/** What the views read of a webhook row. */
type WebhookRow = Pick<
  WebhooksTable,
  | 'id'
  | 'url'
  | 'events'
  | 'active'
  | 'created_at'
  | 'secret'
  | 'previous_secret'
  | 'previous_secret_expires_at'
>;

const events = (row: WebhookRow) => JSON.parse(row.events) as EventType[];

/** The webhook as create, get and update return it. The secret is never part of any view. */
export function toWebhook(row: WebhookRow) {
  return {
    id: row.id,
    url: row.url,
    events: events(row),
    active: row.active === 1,
    created_at: row.created_at,
    ...(row.secret !== null &&
    row.previous_secret &&
    (row.previous_secret_expires_at ?? '') > new Date().toISOString()
      ? { previous_secret_expires_at: row.previous_secret_expires_at! }
      : {}),
  };
}

/** List item: as the spec shows, without created_at. */
export function toWebhookListItem(row: WebhookRow) {
  return { id: row.id, url: row.url, events: events(row), active: row.active === 1 };
}

export function toDeliveryAttempt(row: DeliveryAttemptsTable) {
  return {
    attempt: Number(row.attempt),
    started_at: row.started_at,
    ...(row.completed_at ? { completed_at: row.completed_at } : {}),
    ...(row.duration_ms !== null ? { duration_ms: Number(row.duration_ms) } : {}),
    ...(row.status_code !== null ? { status_code: Number(row.status_code) } : {}),
    ...(row.error !== null ? { error: row.error } : {}),
    ...(row.response_body !== null ? { response_body: row.response_body } : {}),
  };
}

export function toDelivery(row: DeliveriesTable, attempts: DeliveryAttemptsTable[]) {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type as AnyEventType,
    status: row.status,
    attempt_count: Number(row.attempts),
    ...(row.status === 'pending' && row.next_attempt_at ? { next_attempt_at: row.next_attempt_at } : {}),
    ...(row.redelivery_of ? { redelivery_of: row.redelivery_of } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...(row.completed_at ? { completed_at: row.completed_at } : {}),
    attempts: attempts.map(toDeliveryAttempt),
  };
}
