import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { createWebhook, SECRET } from './fixtures.ts';
import { useReceiver } from './receiver.ts';

const CAP = 2;
const ENV = { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_CONCURRENCY_PER_ACCOUNT: String(CAP) };

describe.each(DIALECTS)('webhook test events under the per-account concurrency cap (%s)', (dialect) => {
  const h = useHarness(dialect, ENV);
  const { receiver, pathOf, requestsTo } = useReceiver();

  it(`holds at most ${CAP} connections per account to a slow receiver; the rest are 429 with Retry-After`, async () => {
    const [a, b] = [await h.tenant(), await h.tenant()];
    const slow = pathOf('slow');
    receiver().respond((req) =>
      req.path === slow ? { status: 200, body: 'ok', delayMs: 3000 } : { status: 200 },
    );
    const mine = await createWebhook(h, a.liveKey, { url: `${receiver().url}${slow}`, secret: SECRET });
    const theirs = await createWebhook(h, b.liveKey, {
      url: `${receiver().url}${pathOf('b')}`,
      secret: SECRET,
    });

    const burst = Array.from({ length: 6 }, () =>
      h.request('POST', `/v1/webhooks/${mine.id}/test`, { key: a.liveKey }),
    );
    // Another account's test goes out meanwhile: the cap is per account.
    const other = await h.request('POST', `/v1/webhooks/${theirs.id}/test`, { key: b.liveKey });
    expect(other.status).toBe(200);
    expect(other.body.delivered).toBe(true);

    const results = await Promise.all(burst);
    expect(results.filter((r) => r.status === 200)).toHaveLength(CAP);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(6 - CAP);
    for (const r of refused) {
      expect(r.body.error.code).toBe('rate_limited');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(requestsTo(slow)).toHaveLength(CAP);
    // The slots are free again once the attempts ended.
    receiver().respond(() => ({ status: 200 }));
    const again = await h.request('POST', `/v1/webhooks/${mine.id}/test`, { key: a.liveKey });
    expect(again.status).toBe(200);
  });
});
