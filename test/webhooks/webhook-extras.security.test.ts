import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { createWebhook, SECRET } from './fixtures.ts';
import { useReceiver } from './receiver.ts';

const ENV = { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' };

for (const dialect of DIALECTS) {
  describe(`webhook test and rotate-secret security (${dialect})`, () => {
    const h = useHarness(dialect, ENV);
    const { receiver, pathOf, requestsTo } = useReceiver();

    it("another account's and the other mode's webhooks are 404: nothing is sent, the secret stays", async () => {
      const owner = await h.tenant();
      const intruder = await h.tenant();
      const path = pathOf('owned');
      const wh = await createWebhook(h, owner.liveKey, { url: `${receiver().url}${path}`, secret: SECRET });
      for (const key of [intruder.liveKey, intruder.testKey, owner.testKey]) {
        expectApiError(
          await h.request('POST', `/v1/webhooks/${wh.id}/test`, { key }),
          404,
          'resource_not_found',
        );
        expectApiError(
          await h.request('POST', `/v1/webhooks/${wh.id}/rotate-secret`, { key, body: {} }),
          404,
          'resource_not_found',
        );
      }
      expect(requestsTo(path)).toEqual([]);
      const res = await h.request('POST', `/v1/webhooks/${wh.id}/test`, { key: owner.liveKey });
      expect(res.body.delivered).toBe(true);
      expect(requestsTo(path)[0]!.headers['webhook-signature']).not.toContain(' ');
    });

    it('401 without a key, with a bad key and with a revoked key; 403 without webhooks:manage', async () => {
      const t = await h.tenant();
      const path = pathOf('auth');
      const wh = await createWebhook(h, t.liveKey, { url: `${receiver().url}${path}`, secret: SECRET });
      const narrow = await t.keyWithScopes(['notes:read', 'notes:write', 'search']);
      for (const [suffix, body] of [
        ['test', undefined],
        ['rotate-secret', {}],
      ] as const) {
        const url = `/v1/webhooks/${wh.id}/${suffix}`;
        expectApiError(await h.request('POST', url, { body }), 401, 'api_key_missing');
        expectApiError(
          await h.request('POST', url, { key: 'svc_sk_live_notavalidkeyatall000000000000', body }),
          401,
        );
        expectApiError(
          await h.request('POST', url, { key: await t.revokedKey(), body }),
          401,
          'api_key_revoked',
        );
        const res = await h.request('POST', url, { key: narrow, body });
        expectApiError(res, 403, 'insufficient_scope');
        expect(res.body.error.message).toContain('webhooks:manage');
      }
      expect(requestsTo(path)).toEqual([]);
    });

    it('the outbound guard applies to test deliveries: a private target is refused without the dev setting', async () => {
      const strict = await h.tenant();
      // Created while private targets are allowed, then tested by an app that refuses them.
      const wh = await createWebhook(h, strict.liveKey, { url: `${receiver().url}${pathOf('guard')}` });
      const { buildApp } = await import('../../src/app.ts');
      const app = buildApp({
        ...h.deps,
        config: { ...h.deps.config, webhooks: { ...h.deps.config.webhooks, allowPrivateTargets: false } },
      });
      const res = await app.request(`/v1/webhooks/${wh.id}/test`, {
        method: 'POST',
        headers: { authorization: `Bearer ${strict.liveKey}` },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { delivered: boolean; error?: string };
      expect(body.delivered).toBe(false);
      expect(body.error).toMatch(/private|loopback|refused|not allowed/i);
    });
  });
}
