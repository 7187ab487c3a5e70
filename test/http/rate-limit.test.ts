import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { type TestResponse, useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';

/** Waits out the last two seconds of a minute, so a fixed one-minute window cannot roll over mid-test. */
async function awayFromWindowEdge() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 2_000) await new Promise((r) => setTimeout(r, left + 50));
}

function rateLimitHeaders(res: TestResponse) {
  const policy = res.headers.get('ratelimit-policy') ?? '';
  const limit = res.headers.get('ratelimit') ?? '';
  return {
    policy,
    limit,
    q: Number(/;q=(\d+)/.exec(policy)?.[1]),
    w: Number(/;w=(\d+)/.exec(policy)?.[1]),
    r: Number(/;r=(\d+)/.exec(limit)?.[1]),
    t: Number(/;t=(\d+)/.exec(limit)?.[1]),
  };
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect, { RATE_LIMIT_PER_MINUTE: '3' });

    it('allows 3 requests a minute per key, then answers 429 rate_limited with Retry-After', async () => {
      const t = await h.tenant();
      await awayFromWindowEdge();
      for (const remaining of [2, 1, 0]) {
        const res = await h.request('GET', '/v1/notes', { key: t.liveKey });
        expect(res.status).toBe(200);
        const rl = rateLimitHeaders(res);
        expect(rl.policy).toMatch(/^"[^"]+";q=3;w=60$/);
        expect(rl.limit).toMatch(/^"[^"]+";r=\d+;t=\d+$/);
        expect(rl.r).toBe(remaining);
        expect(rl.t).toBeGreaterThanOrEqual(1);
        expect(rl.t).toBeLessThanOrEqual(60);
      }
      const limited = await h.request('GET', '/v1/notes', { key: t.liveKey });
      expectApiError(limited, 429, 'rate_limited');
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      const rl = rateLimitHeaders(limited);
      expect(rl).toMatchObject({ q: 3, w: 60, r: 0 });
      expect(rl.t).toBe(retryAfter);
    });

    it('counts every route and method of a key together, and writes are refused too', async () => {
      const t = await h.tenant();
      await awayFromWindowEdge();
      expect((await h.request('GET', '/v1/notes', { key: t.liveKey })).status).toBe(200);
      expect((await h.request('GET', '/v1/notes/note_missing', { key: t.liveKey })).status).toBe(404);
      expect(
        (await h.request('POST', '/v1/notes', { key: t.liveKey, body: { transcript: 'Alice: one' } })).status,
      ).toBe(202);
      const refused = await h.request('POST', '/v1/notes', {
        key: t.liveKey,
        body: { transcript: 'Alice: two' },
      });
      expectApiError(refused, 429, 'rate_limited');
      const other = await h.tenant();
      expect((await h.request('GET', '/v1/notes', { key: other.liveKey })).status).toBe(200);
      // The refused create stored nothing: only the first note exists.
      const fresh = await t.keyWithScopes(['notes:read']);
      expect((await h.request('GET', '/v1/notes', { key: fresh })).body.meta.total).toBe(1);
    });

    it('limits are per key: another key of the same account, and the test key, have their own budget', async () => {
      const t = await h.tenant();
      await awayFromWindowEdge();
      for (let i = 0; i < 3; i++) await h.request('GET', '/v1/notes', { key: t.liveKey });
      expectApiError(await h.request('GET', '/v1/notes', { key: t.liveKey }), 429, 'rate_limited');
      const second = await t.keyWithScopes(['notes:read']);
      expect((await h.request('GET', '/v1/notes', { key: second })).status).toBe(200);
      expect((await h.request('GET', '/v1/notes', { key: t.testKey })).status).toBe(200);
    });

    it('health checks and the OpenAPI document are not rate limited', async () => {
      for (let i = 0; i < 5; i++) {
        expect((await h.request('GET', '/healthz')).status).toBe(200);
        expect((await h.request('GET', '/readyz')).status).toBe(200);
        expect((await h.request('GET', '/v1/openapi.json')).status).toBe(200);
      }
    });

    it('requests without a valid key are answered 401, never 429', async () => {
      for (let i = 0; i < 5; i++) {
        expectApiError(await h.request('GET', '/v1/notes'), 401, 'api_key_missing');
      }
    });
  });
}
