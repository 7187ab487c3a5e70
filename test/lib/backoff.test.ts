import { describe, expect, it } from 'vitest';
import { retryDelayMs } from '../../src/features/webhooks/delivery/retry-policy.ts';
import { computeRetryDelayMs } from '../../src/jobs/worker.ts';
import { backoffDelayMs, exponentialDelayMs, withJitter } from '../../src/lib/backoff.ts';

const draws = [0, 0.1, 0.25, 0.5, 0.75, 0.999999];

describe('backoff', () => {
  it('doubles per attempt from the base', () => {
    expect([1, 2, 3, 4].map((n) => exponentialDelayMs(n, 30_000))).toEqual([
      30_000, 60_000, 120_000, 240_000,
    ]);
  });

  it('spreads a delay within [1 − below, 1 + above], rounded to whole milliseconds', () => {
    const jitter = { below: 0.2, above: 0.2 };
    expect(withJitter(10_000, jitter, () => 0)).toBe(8_000);
    expect(withJitter(10_000, jitter, () => 0.5)).toBe(10_000);
    for (const r of draws) {
      const ms = withJitter(1_234, jitter, () => r);
      expect(Number.isInteger(ms)).toBe(true);
      expect(ms).toBeGreaterThanOrEqual(Math.floor(1_234 * 0.8));
      expect(ms).toBeLessThanOrEqual(Math.ceil(1_234 * 1.2));
    }
  });

  it("gives the jobs' retry delays exactly as the formula they replaced (±20%, capped at six hours)", () => {
    for (const attempt of [1, 2, 5, 12, 30])
      for (const base of [1, 30, 300])
        for (const r of draws) {
          const before = Math.min(
            6 * 3600_000,
            Math.round(base * 1000 * 2 ** (attempt - 1) * (1 - 0.2 + 2 * 0.2 * r)),
          );
          expect(computeRetryDelayMs(attempt, base, () => r)).toBe(before);
        }
  });

  it("gives the webhook schedule's delays exactly as the formula it replaced (schedule entry, up to +20%)", () => {
    const schedule = [30, 120, 480];
    for (const [i, seconds] of schedule.entries())
      for (const r of draws) {
        const before = Math.round(seconds * 1000 * (1 + 0.2 * r));
        expect(retryDelayMs(i + 1, schedule, () => r)).toBe(before);
        expect(withJitter(seconds * 1000, { below: 0, above: 0.2 }, () => r)).toBe(before);
      }
    expect(retryDelayMs(4, schedule, () => 0.5)).toBeNull();
    expect(retryDelayMs(1, [], () => 0.5)).toBeNull();
  });

  it('gives one delay per schedule entry and none after it; an exponential policy never runs out but is capped', () => {
    const schedule = { kind: 'schedule', delaysMs: [1_000, 5_000], jitter: { below: 0, above: 0 } } as const;
    expect([1, 2, 3].map((n) => backoffDelayMs(n, schedule))).toEqual([1_000, 5_000, null]);
    const exponential = {
      kind: 'exponential',
      baseMs: 1_000,
      capMs: 10_000,
      jitter: { below: 0, above: 0 },
    } as const;
    expect([1, 2, 3, 4, 5, 40].map((n) => backoffDelayMs(n, exponential))).toEqual([
      1_000, 2_000, 4_000, 8_000, 10_000, 10_000,
    ]);
  });
});
