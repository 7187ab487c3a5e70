import { type BackoffPolicy, backoffDelayMs } from '../../../lib/backoff.ts';
import type { AttemptResult } from './execute-delivery.ts';

/**
 * What a claimed delivery comes to, decided without I/O: sent (`delivered`), tried again later (`retry`),
 * given up (`failed`), or not sent because its webhook is no longer active (`cancelled`).
 */
export type DeliveryDecision =
  | { kind: 'delivered' }
  | { kind: 'retry'; at: Date; delayMs: number }
  | {
      kind: 'failed';
      /**
       * `lost`: the last attempt's worker stopped before recording it (lease ran out); `event-gone`: the event
       * was deleted; `exhausted`: the last attempt failed.
       */
      reason: 'lost' | 'event-gone' | 'exhausted';
    }
  | { kind: 'cancelled'; reason: 'webhook-inactive' };

/** Retries wait between 100% and 120% of their scheduled delay, so receivers that failed together recover apart. */
export const RETRY_JITTER = 0.2;

/** The webhook retry schedule (WEBHOOKS_RETRY_SCHEDULE, default 30 s, 2 min, 8 min) as a backoff policy. */
export const webhookBackoff = (scheduleSeconds: readonly number[]): BackoffPolicy => ({
  kind: 'schedule',
  delaysMs: scheduleSeconds.map((seconds) => seconds * 1000),
  jitter: { below: 0, above: RETRY_JITTER },
});

/**
 * Delay before the retry that follows failed attempt `attempt` (1-based): the schedule's entry for it,
 * stretched by up to 20% jitter; null when the schedule has no further retry (4 attempts with the default).
 */
export function retryDelayMs(
  attempt: number,
  scheduleSeconds: readonly number[],
  random: () => number = Math.random,
): number | null {
  return backoffDelayMs(attempt, webhookBackoff(scheduleSeconds), random);
}

/** Attempts a delivery gets in all: the first plus one per schedule entry. */
export const maxAttempts = (scheduleSeconds: readonly number[]) => scheduleSeconds.length + 1;

/**
 * Before sending attempt `attempt` (1-based, counted by the claim): null to send it, or what the delivery comes
 * to without sending (its webhook was deactivated; or the attempt number is past the last one, so the worker
 * that held the last attempt stopped without recording it, and sending again could take this one down too).
 */
export function decideBeforeSending(input: {
  attempt: number;
  scheduleSeconds: readonly number[];
  webhookActive: boolean;
}): DeliveryDecision | null {
  if (!input.webhookActive) return { kind: 'cancelled', reason: 'webhook-inactive' };
  if (input.attempt > maxAttempts(input.scheduleSeconds)) return { kind: 'failed', reason: 'lost' };
  return null;
}

/**
 * After attempt `attempt` (1-based) came to `result` at `now`: a 2xx is delivered; any other failure (another
 * status, a redirect, a timeout, a network error, a refused target) is retried on the schedule while attempts
 * remain, else failed. An attempt whose event no longer exists (`eventGone`) fails for good: no retry can send it.
 */
export function decideAfterAttempt(input: {
  attempt: number;
  scheduleSeconds: readonly number[];
  result: AttemptResult;
  eventGone?: boolean;
  now: number;
  random?: () => number;
}): Exclude<DeliveryDecision, { kind: 'cancelled' }> {
  if (input.result.outcome === 'delivered') return { kind: 'delivered' };
  if (input.eventGone) return { kind: 'failed', reason: 'event-gone' };
  const delayMs = retryDelayMs(input.attempt, input.scheduleSeconds, input.random);
  if (delayMs !== null && input.attempt < maxAttempts(input.scheduleSeconds))
    return { kind: 'retry', at: new Date(input.now + delayMs), delayMs };
  return { kind: 'failed', reason: 'exhausted' };
}
