import type { Migration } from '../migrate.ts';

/**
 * Fair delivery and the redelivery rule (issue 11).
 * - `deliveries_space_due`: the pending deliveries of one account and mode in due order. The claim walks the
 *   accounts that have pending deliveries (one index seek each) and takes the next due ones of each, round
 *   robin, so one account's backlog is never in front of another's. Its columns are those `deliveries_due`
 *   already indexes (plus the account and mode, never updated): claims and outcome updates stay HOT on
 *   PostgreSQL.
 * - `webhooks.url_changed_seq`: the newest outbox event when the webhook's URL last changed (0: never). Events
 *   up to it were meant for another URL; redelivering them to the new one needs the scope that reads them.
 */
export const webhooksFairness: Migration = {
  version: 8,
  name: 'webhooks-fairness',
  statements: () => [
    "CREATE INDEX deliveries_space_due ON deliveries (account_id, mode, next_attempt_at, event_seq) WHERE status = 'pending'",
    'ALTER TABLE webhooks ADD COLUMN url_changed_seq BIGINT NOT NULL DEFAULT 0',
  ],
};
