import { AppError } from '../../../lib/errors.ts';

/** Test events in flight in this process, per account and mode. */
const inFlight = new Map<string, number>();

/**
 * Takes one of the account's `cap` test-event slots (WEBHOOKS_CONCURRENCY_PER_ACCOUNT, the cap its deliveries
 * have), or throws 429 `rate_limited`: one account cannot hold more connections to slow receivers with test
 * events than it can with deliveries. Returns the release; call it once the attempt has ended.
 */
export function takeTestEventSlot(spaceKey: string, cap: number, retryAfterSeconds: number): () => void {
  const busy = inFlight.get(spaceKey) ?? 0;
  if (busy >= cap) {
    throw new AppError(
      'rate_limited',
      `${cap} test events of this account are being sent already; retry once one has finished.`,
      { headers: { 'Retry-After': String(retryAfterSeconds) } },
    );
  }
  inFlight.set(spaceKey, busy + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (inFlight.get(spaceKey) ?? 1) - 1;
    if (left > 0) inFlight.set(spaceKey, left);
    else inFlight.delete(spaceKey);
  };
}
