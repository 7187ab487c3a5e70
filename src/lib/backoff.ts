/**
 * Retry backoff shared by the job worker and (next) the webhook delivery worker: an exponential delay and a
 * random spread, so callers that failed together do not retry together. Pure; `random` is injectable for tests.
 */

/** How far a delay may be spread: a factor drawn uniformly from [1 − below, 1 + above]. */
export interface Jitter {
  below: number;
  above: number;
}

/** base × 2^(attempt−1) for retry number `attempt` (1-based). */
export const exponentialDelayMs = (attempt: number, baseMs: number) => baseMs * 2 ** (attempt - 1);

/** `ms` scaled by a random factor in [1 − below, 1 + above], rounded to whole milliseconds. */
export function withJitter(ms: number, jitter: Jitter, random: () => number = Math.random): number {
  return Math.round(ms * (1 - jitter.below + (jitter.below + jitter.above) * random()));
}
