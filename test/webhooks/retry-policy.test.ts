import { describe, expect, it } from 'vitest';
import type { AttemptResult } from '../../src/features/webhooks/delivery/execute-delivery.ts';
import {
  decideAfterAttempt,
  decideBeforeSending,
  maxAttempts,
} from '../../src/features/webhooks/delivery/retry-policy.ts';

/** The default WEBHOOKS_RETRY_SCHEDULE: 3 retries, 4 attempts. */
const SCHEDULE = [30, 120, 480];
const NOW = Date.parse('2026-01-01T00:00:00.000Z');

const delivered = (statusCode: number): AttemptResult => ({
  outcome: 'delivered',
  statusCode,
  durationMs: 5,
  responseBody: 'ok',
});
const status = (statusCode: number): AttemptResult => ({
  outcome: 'failed',
  reason: statusCode >= 300 && statusCode < 400 ? 'redirect' : 'status',
  statusCode,
  error: `The receiver answered ${statusCode}.`,
  durationMs: 5,
});
const failedWith = (reason: 'timeout' | 'network' | 'refused'): AttemptResult => ({
  outcome: 'failed',
  reason,
  error: reason,
  durationMs: 5,
});

describe('webhook retry decision (no HTTP)', () => {
  it('gives 4 attempts with the default schedule', () => {
    expect(maxAttempts(SCHEDULE)).toBe(4);
    expect(maxAttempts([])).toBe(1);
  });

  describe('after an attempt', () => {
    const cases: [string, AttemptResult][] = [
      ['200', delivered(200)],
      ['201', delivered(201)],
      ['204', delivered(204)],
      ['299', delivered(299)],
    ];
    it.each(cases)('%s is delivered, on any attempt', (_, result) => {
      for (const attempt of [1, 2, 3, 4])
        expect(decideAfterAttempt({ attempt, scheduleSeconds: SCHEDULE, result, now: NOW })).toEqual({
          kind: 'delivered',
        });
    });

    const failures: [string, AttemptResult][] = [
      ['301 (redirects are not followed)', status(301)],
      ['400', status(400)],
      ['404', status(404)],
      ['410 (retried like any other non-2xx)', status(410)],
      ['429', status(429)],
      ['500', status(500)],
      ['503', status(503)],
      ['a timeout', failedWith('timeout')],
      ['a connection error', failedWith('network')],
      ['a refused private address', failedWith('refused')],
    ];
    it.each(failures)(
      '%s is retried on the schedule (+0–20%%), then fails on the last attempt',
      (_, result) => {
        const expected = [
          [1, 30_000, 36_000],
          [2, 120_000, 144_000],
          [3, 480_000, 576_000],
        ] as const;
        for (const [attempt, low, high] of expected) {
          for (const [draw, delay] of [
            [0, low],
            [1, high],
          ] as const) {
            expect(
              decideAfterAttempt({
                attempt,
                scheduleSeconds: SCHEDULE,
                result,
                now: NOW,
                random: () => draw,
              }),
            ).toEqual({ kind: 'retry', at: new Date(NOW + delay), delayMs: delay });
          }
        }
        expect(decideAfterAttempt({ attempt: 4, scheduleSeconds: SCHEDULE, result, now: NOW })).toEqual({
          kind: 'failed',
          reason: 'exhausted',
        });
      },
    );

    it('fails for good when the event no longer exists, whatever attempts remain', () => {
      for (const attempt of [1, 2, 4])
        expect(
          decideAfterAttempt({
            attempt,
            scheduleSeconds: SCHEDULE,
            result: failedWith('network'),
            eventGone: true,
            now: NOW,
          }),
        ).toEqual({ kind: 'failed', reason: 'event-gone' });
    });

    it('follows a configured schedule: one retry per entry', () => {
      const schedule = [1, 2];
      const result = status(500);
      const kinds = [1, 2, 3].map(
        (attempt) => decideAfterAttempt({ attempt, scheduleSeconds: schedule, result, now: NOW }).kind,
      );
      expect(kinds).toEqual(['retry', 'retry', 'failed']);
      expect(decideAfterAttempt({ attempt: 1, scheduleSeconds: [], result, now: NOW })).toEqual({
        kind: 'failed',
        reason: 'exhausted',
      });
    });
  });

  describe('before sending', () => {
    it("sends an active webhook's attempt up to the last one", () => {
      for (const attempt of [1, 2, 3, 4])
        expect(decideBeforeSending({ attempt, scheduleSeconds: SCHEDULE, webhookActive: true })).toBeNull();
    });

    it('fails an attempt past the last one: its worker stopped before recording the last attempt', () => {
      expect(decideBeforeSending({ attempt: 5, scheduleSeconds: SCHEDULE, webhookActive: true })).toEqual({
        kind: 'failed',
        reason: 'lost',
      });
    });

    it('cancels the delivery of an inactive webhook, before any attempt-count check', () => {
      for (const attempt of [1, 4, 5])
        expect(decideBeforeSending({ attempt, scheduleSeconds: SCHEDULE, webhookActive: false })).toEqual({
          kind: 'cancelled',
          reason: 'webhook-inactive',
        });
    });
  });
});
