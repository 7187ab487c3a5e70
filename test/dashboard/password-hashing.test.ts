import { describe, expect, it } from 'vitest';
import {
  hashingPeak,
  MAX_CONCURRENT_HASHES,
  MAX_QUEUED_HASHES,
  verifyDecoy,
} from '../../src/features/users/passwords.ts';
import { AppError } from '../../src/lib/errors.ts';

describe('password hashing is bounded', () => {
  it(`runs at most ${MAX_CONCURRENT_HASHES} hashes at once, so libuv's pool keeps threads for file I/O`, async () => {
    await verifyDecoy('warm up');
    hashingPeak(true);
    await Promise.all(Array.from({ length: 12 }, (_, i) => verifyDecoy(`guess ${i}`)));
    expect(hashingPeak()).toBe(MAX_CONCURRENT_HASHES);
  });

  it('answers `unavailable` at once beyond the queue instead of queueing without end', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: MAX_CONCURRENT_HASHES + MAX_QUEUED_HASHES + 5 }, (_, i) =>
        verifyDecoy(`guess ${i}`),
      ),
    );
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(AppError);
      expect(((r as PromiseRejectedResult).reason as AppError).code).toBe('unavailable');
    }
    // The queue drained: the next hash runs.
    await expect(verifyDecoy('after')).resolves.toBeUndefined();
  });
});
