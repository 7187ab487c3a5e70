/** Retries wait between 100% and 120% of their scheduled delay, so receivers that failed together recover apart. */
export const RETRY_JITTER = 0.2;

/**
 * Delay before the retry that follows failed attempt `attempt` (1-based): the schedule's entry for it
 * (WEBHOOKS_RETRY_SCHEDULE, default 30 s, 2 min, 8 min: exponential), stretched by up to 20% jitter; null when
 * the schedule has no further retry (4 attempts with the default schedule).
 */
export function retryDelayMs(
  attempt: number,
  scheduleSeconds: readonly number[],
  random: () => number = Math.random,
): number | null {
  const seconds = scheduleSeconds[attempt - 1];
  if (seconds === undefined) return null;
  return Math.round(seconds * 1000 * (1 + RETRY_JITTER * random()));
}

/** Attempts a delivery gets in all: the first plus one per schedule entry. */
export const maxAttempts = (scheduleSeconds: readonly number[]) => scheduleSeconds.length + 1;
