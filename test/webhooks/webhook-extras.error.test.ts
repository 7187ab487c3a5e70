import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { freshId } from '../helpers/routes.ts';
import { sendRaw } from '../helpers/send-raw.ts';
import { createWebhook, SECRET } from './fixtures.ts';

const ENV = { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' };

for (const dialect of DIALECTS) {
  describe(`webhook test and rotate-secret errors (${dialect})`, () => {
    const h = useHarness(dialect, ENV);

    it.each([
      ['a short secret', { secret: 'short' }, 'parameter_invalid', 'secret'],
      ['a secret with a newline', { secret: 'whsec_0123456789\nabcdef' }, 'parameter_invalid', 'secret'],
      ['a null secret', { secret: null }, 'parameter_invalid', 'secret'],
      ['a negative overlap', { overlap_seconds: -1 }, 'parameter_invalid', 'overlap_seconds'],
      ['an overlap over 30 days', { overlap_seconds: 2_592_001 }, 'parameter_invalid', 'overlap_seconds'],
      ['a fractional overlap', { overlap_seconds: 1.5 }, 'parameter_invalid', 'overlap_seconds'],
      ['an overlap as a string', { overlap_seconds: '60' }, 'parameter_invalid', 'overlap_seconds'],
      ['an unknown field', { overlap: 60 }, 'parameter_unknown', 'overlap'],
    ])('rotate-secret: 400 for %s, and the secret is unchanged', async (_, body, code, param) => {
      const t = await h.tenant();
      const wh = await createWebhook(h, t.liveKey, { url: 'http://127.0.0.1:1/hook', secret: SECRET });
      const res = await h.request('POST', `/v1/webhooks/${wh.id}/rotate-secret`, { key: t.liveKey, body });
      expectApiError(res, 400, code);
      expect(res.body.error.param).toBe(param);
      expect(res.text).not.toContain('whsec_0123456789');
      const row = await h.deps.db
        .withTables<{ webhooks: { id: string; secret: string | null; previous_secret: string | null } }>()
        .selectFrom('webhooks')
        .select(['secret', 'previous_secret'])
        .where('id', '=', wh.id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ secret: SECRET, previous_secret: null });
    });

    it('rotate-secret: 400 for malformed JSON, 415 without a JSON content type', async () => {
      const t = await h.tenant();
      const wh = await createWebhook(h, t.liveKey, { url: 'http://127.0.0.1:1/hook' });
      const path = `/v1/webhooks/${wh.id}/rotate-secret`;
      expectApiError(
        await sendRaw(h, 'POST', path, t.liveKey, '{', 'application/json'),
        400,
        'body_invalid_json',
      );
      expectApiError(
        await sendRaw(h, 'POST', path, t.liveKey, 'x', 'text/plain'),
        415,
        'unsupported_media_type',
      );
    });

    it('404 for webhook ids that do not exist or are malformed, on both operations', async () => {
      const t = await h.tenant();
      for (const id of [freshId('wh_'), 'nope', freshId('note_')]) {
        expectApiError(
          await h.request('POST', `/v1/webhooks/${id}/test`, { key: t.liveKey }),
          404,
          'resource_not_found',
        );
        expectApiError(
          await h.request('POST', `/v1/webhooks/${id}/rotate-secret`, { key: t.liveKey, body: {} }),
          404,
          'resource_not_found',
        );
      }
    });
  });
}
