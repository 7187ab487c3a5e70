import type { Migration } from '../migrate.ts';

/** Channel a new outbox event is announced on (PostgreSQL), so webhook workers need not wait for a poll. */
export const WEBHOOK_EVENTS_CHANNEL = 'minutes_webhook_events';

/**
 * Webhook subscriptions, their deliveries and the attempt log.
 *
 * Fan-out is durable through `webhook_event_queue`: a trigger adds one row per outbox event in the very
 * transaction that writes the event, and the dispatcher turns queue rows into deliveries and deletes them in
 * one transaction. So no event is skipped (no cursor can jump over a PostgreSQL sequence gap that commits
 * later) and none is fanned out twice.
 */
export const webhooks: Migration = {
  version: 2,
  name: 'webhooks',
  statements: ({ key, ts, pg }) => [
    `CREATE TABLE webhooks (
      id ${key} PRIMARY KEY,
      account_id ${key} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      mode TEXT NOT NULL CHECK (mode IN ('live','test')),
      url TEXT NOT NULL,
      events TEXT NOT NULL,
      secret TEXT,
      active INTEGER NOT NULL DEFAULT 1,
      after_event_seq BIGINT NOT NULL,
      created_at ${ts} NOT NULL,
      updated_at ${ts} NOT NULL
    )`,
    'CREATE INDEX webhooks_space ON webhooks (account_id, mode, created_at, id)',
    'CREATE TABLE webhook_event_queue (event_seq BIGINT PRIMARY KEY)',
    ...(pg
      ? [
          `CREATE FUNCTION minutes_queue_webhook_event() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            INSERT INTO webhook_event_queue (event_seq) VALUES (NEW.seq);
            PERFORM pg_notify('${WEBHOOK_EVENTS_CHANNEL}', '');
            RETURN NULL;
          END
          $$`,
          `CREATE TRIGGER events_queue_webhooks AFTER INSERT ON events
            FOR EACH ROW EXECUTE FUNCTION minutes_queue_webhook_event()`,
        ]
      : [
          `CREATE TRIGGER events_queue_webhooks AFTER INSERT ON events BEGIN
            INSERT INTO webhook_event_queue (event_seq) VALUES (new.seq);
          END`,
        ]),
    // fillfactor 70 (PostgreSQL): claims and outcomes update rows in place (HOT), without touching indexes.
    `CREATE TABLE deliveries (
      id ${key} PRIMARY KEY,
      account_id ${key} NOT NULL,
      mode TEXT NOT NULL CHECK (mode IN ('live','test')),
      webhook_id ${key} NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
      event_id ${key} NOT NULL,
      event_seq BIGINT NOT NULL,
      event_type TEXT NOT NULL,
      order_key ${key},
      redelivery_of ${key},
      status TEXT NOT NULL CHECK (status IN ('pending','succeeded','failed','cancelled')),
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at ${ts},
      locked_by TEXT,
      locked_until ${ts},
      lease_lost INTEGER NOT NULL DEFAULT 0,
      created_at ${ts} NOT NULL,
      updated_at ${ts} NOT NULL,
      completed_at ${ts}
    )${pg ? ' WITH (fillfactor = 70)' : ''}`,
    "CREATE INDEX deliveries_due ON deliveries (next_attempt_at, event_seq) WHERE status = 'pending'",
    "CREATE INDEX deliveries_order ON deliveries (webhook_id, order_key, event_seq) WHERE status = 'pending'",
    'CREATE INDEX deliveries_list ON deliveries (webhook_id, created_at, event_seq, id)',
    // A crashed or repeated fan-out cannot create a second delivery of an event to a webhook.
    'CREATE UNIQUE INDEX deliveries_fanout ON deliveries (webhook_id, event_seq) WHERE redelivery_of IS NULL',
    `CREATE TABLE delivery_attempts (
      delivery_id ${key} NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
      attempt INTEGER NOT NULL,
      started_at ${ts} NOT NULL,
      completed_at ${ts},
      duration_ms INTEGER,
      status_code INTEGER,
      error TEXT,
      response_body TEXT,
      PRIMARY KEY (delivery_id, attempt)
    )`,
  ],
};
