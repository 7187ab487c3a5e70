/**
 * Retry backoff shared by the job worker and the webhook delivery worker: a delay per retry (exponential from a
 * base, or a fixed schedule) and a random spread, so callers that failed together do not retry together. Pure;
 * `random` is injectable for tests.
 */

/** How far a delay may be spread: a factor drawn uniformly from [1 − below, 1 + above]. */
export interface Jitter {
  below: number;
  above: number;
}

/**
 * How a caller's retries are spaced. `exponential`: base × 2^(n−1), spread, then capped (jobs: JOB_RETRY_BASE_SECONDS,
 * ±20%, at most six hours; never runs out: the caller counts attempts). `schedule`: one delay per retry, spread
 * (webhooks: WEBHOOKS_RETRY_SCHEDULE, +0–20%); no delay once the schedule is used up.
 */
export type BackoffPolicy =
  | { kind: 'exponential'; baseMs: number; capMs: number; jitter: Jitter }
  | { kind: 'schedule'; delaysMs: readonly number[]; jitter: Jitter };

/** base × 2^(attempt−1) for retry number `attempt` (1-based). */
export const exponentialDelayMs = (attempt: number, baseMs: number) => baseMs * 2 ** (attempt - 1);

/** `ms` scaled by a random factor in [1 − below, 1 + above], rounded to whole milliseconds. */
export function withJitter(ms: number, jitter: Jitter, random: () => number = Math.random): number {
  return Math.round(ms * (1 - jitter.below + (jitter.below + jitter.above) * random()));
}

/**
 * Delay before the retry that follows failed attempt `attempt` (1-based) under `policy`; null when the policy
 * has no further retry (a schedule used up).
 */
export function backoffDelayMs(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number | null {
  if (policy.kind === 'exponential')
    return Math.min(
      policy.capMs,
      withJitter(exponentialDelayMs(attempt, policy.baseMs), policy.jitter, random),
    );
  const ms = policy.delaysMs[attempt - 1];
  return ms === undefined ? null : withJitter(ms, policy.jitter, random);
}
