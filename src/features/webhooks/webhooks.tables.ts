import type { Generated, Kysely } from 'kysely';
import type { Database, Db, Mode } from '../../db/schema.ts';

/** Timestamps are ISO 8601 UTC text, as everywhere else. */
type Iso = string;

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface WebhooksTable {
  id: string;
  account_id: string;
  mode: Mode;
  url: string;
  /** JSON array of subscribed event types. */
  events: string;
  /** Signing secret; write-only through the API, never logged. */
  secret: string | null;
  /** (ext, 0011) The secret a rotation replaced: it still signs deliveries until `previous_secret_expires_at`. */
  previous_secret?: string | null;
  previous_secret_expires_at?: Iso | null;
  /** 1 or 0. */
  active: number;
  /** The newest outbox event when the webhook was created: older events are never sent to it. */
  after_event_seq: number;
  /** The newest outbox event when the URL last changed (0: never): earlier events were meant for another URL. */
  url_changed_seq: Generated<number>;
  created_at: Iso;
  updated_at: Iso;
}

/** One outbox event not fanned out to webhooks yet (filled by a trigger on `events`). */
export interface WebhookEventQueueTable {
  event_seq: number;
}

/** One event sent to one webhook: the unit that is retried, leased and redelivered. */
export interface DeliveriesTable {
  id: string;
  account_id: string;
  mode: Mode;
  webhook_id: string;
  event_id: string;
  event_seq: number;
  event_type: string;
  /** Deliveries of one webhook with the same key go out one after another, in event order (the note id). */
  order_key: string | null;
  /** The delivery this one re-sends, for redeliveries. */
  redelivery_of: string | null;
  status: DeliveryStatus;
  /** Attempts started, including one whose worker died before recording it. */
  attempts: number;
  next_attempt_at: Iso | null;
  locked_by: string | null;
  locked_until: Iso | null;
  /** Set by a claim that took over an expired lease: the previous attempt's outcome is unknown. */
  lease_lost: number;
  created_at: Iso;
  updated_at: Iso;
  completed_at: Iso | null;
}

/** The attempt log: one row per HTTP attempt, whatever its outcome. */
export interface DeliveryAttemptsTable {
  delivery_id: string;
  attempt: number;
  started_at: Iso;
  /** Null for an attempt whose worker died before recording its outcome. */
  completed_at: Iso | null;
  duration_ms: number | null;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
}

export type WebhookTables = {
  webhooks: WebhooksTable;
  webhook_event_queue: WebhookEventQueueTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
};

export type WebhooksDb = Kysely<Database & WebhookTables>;

/** The application's database handle, typed with the tables of this feature (migration 0002). */
export function webhooksDb(db: Db): WebhooksDb {
  return db.withTables<WebhookTables>();
}
