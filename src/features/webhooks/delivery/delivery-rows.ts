import { type Selectable, sql } from 'kysely';
import type { DeliveriesTable } from '../webhooks.tables.ts';

/** A delivery as stored. */
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
  /** The rotated-out secret and until when it still signs. */
  previous_secret?: string | null;
  previous_secret_expires_at?: string | null;
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
}

/** Rows per statement, well under SQLite's and PostgreSQL's bind parameter limits. */
export const CHUNK = 100;

/**
 * Bookkeeping commits on PostgreSQL (claims, outcomes) do not wait for the WAL flush (synchronous_commit =
 * off): a database crash can forget the last moments of bookkeeping, which only makes deliveries be sent
 * again (at-least-once holds; events and fan-out keep synchronous commits), and the worker is not bound by
 * one disk flush per statement. The statements run on their own (one round trip each) and switch it off for
 * their implicit transaction with `ASYNC_COMMIT`, evaluated for every row they write.
 */
export const ASYNC_COMMIT = sql<boolean>`(set_config('synchronous_commit', 'off', true) = 'off')`;

/**
 * `'pending'` as a literal, not a bound parameter: SQLite uses a partial index (`WHERE status = 'pending'`)
 * only when the query's term is literally the same; with a parameter the claim scans the whole table.
 */
export const PENDING = sql.lit('pending' as const);
