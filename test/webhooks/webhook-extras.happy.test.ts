import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, useHarness } from '../helpers/harness.ts';
import {
  createWebhook,
  DELIVERY_ID,
  deliverDue,
  EVENT_ID,
  emit,
  listDeliveries,
  SECRET,
  verifySignatures,
} from './fixtures.ts';
import type { ReceivedRequest } from './receiver.ts';
import { useReceiver } from './receiver.ts';

const ENV = { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_RETRY_SCHEDULE: '0.2,0.4,0.8' };
const NEW_SECRET = 'whsec_rotated_9876543210abcdefXYZ';

/** Verifies `webhook-signature` with the Standard Webhooks reference library and the given (ASCII) secret. */
function verifiesWith(request: ReceivedRequest, secret: string): boolean {
  try {
    new StandardWebhook(secret, { format: 'raw' }).verify(request.body, {
      'webhook-id': request.headers['webhook-id']!,
      'webhook-timestamp': request.headers['webhook-timestamp']!,
      'webhook-signature': request.headers['webhook-signature']!,
    });
    return true;
  } catch {
    return false;
  }
}

const hexSignature = (request: ReceivedRequest, secret: string) =>
  createHmac('sha256', secret).update(request.raw).digest('hex');

async function rotate(h: Harness, key: string, id: string, body: Record<string, unknown>) {
  const res = await h.request('POST', `/v1/webhooks/${id}/rotate-secret`, { key, body });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return res.body as { id: string; secret?: string; previous_secret_expires_at?: string };
}

for (const dialect of DIALECTS) {
  describe(`webhook test deliveries and secret rotation (${dialect})`, () => {
    const h = useHarness(dialect, ENV);
    const { receiver, pathOf, requestsTo } = useReceiver();

    describe('POST /v1/webhooks/:id/test', () => {
      it('sends a signed webhook.test event to that webhook only and logs the attempt', async () => {
        const t = await h.tenant();
        const path = pathOf('test');
        const other = pathOf('other');
        const wh = await createWebhook(h, t.liveKey, { url: `${receiver().url}${path}`, secret: SECRET });
        await createWebhook(h, t.liveKey, { url: `${receiver().url}${other}`, secret: SECRET });
        const res = await h.request('POST', `/v1/webhooks/${wh.id}/test`, { key: t.liveKey });
        expect(res.status, res.text).toBe(200);
        expect(res.body).toEqual({
          delivered: true,
          status_code: 200,
          duration_ms: expect.any(Number),
          delivery_id: expect.stringMatching(DELIVERY_ID),
          event_id: expect.stringMatching(EVENT_ID),
        });
        const [req, ...more] = requestsTo(path);
        expect(more).toEqual([]);
        expect(req!.headers['x-svc-event']).toBe('webhook.test');
        expect(req!.headers['webhook-id']).toBe(res.body.event_id);
        const body = verifySignatures(req!, SECRET) as Record<string, any>;
        expect(body).toMatchObject({
          id: res.body.event_id,
          type: 'webhook.test',
          data: { webhook_id: wh.id },
        });
        // The other webhook, the worker's fan-out included, never sees it.
        await deliverDue(h);
        expect(requestsTo(other)).toEqual([]);
        expect(requestsTo(path)).toHaveLength(1);

        const [delivery] = await listDeliveries(h, t.liveKey, wh.id);
        expect(delivery).toMatchObject({
          id: res.body.delivery_id,
          event_id: res.body.event_id,
          event_type: 'webhook.test',
          status: 'succeeded',
          attempt_count: 1,
          attempts: [{ attempt: 1, status_code: 200, response_body: 'ok' }],
        });
        // Redelivering it sends the same event again, through the worker.
        const again = await h.request(
          'POST',
          `/v1/webhooks/${wh.id}/deliveries/${res.body.delivery_id}/redeliver`,
          { key: t.liveKey },
        );
        expect(again.status).toBe(202);
        await deliverDue(h);
        expect(requestsTo(path).map((r) => r.body)).toEqual([req!.body, req!.body]);
      });

      it('a failing endpoint gives delivered: false with the status and reason, logged as failed', async () => {
        const t = await h.tenant();
        const path = pathOf('down');
        receiver().respond((r) =>
          r.path === path ? { status: 503, body: 'down' } : { status: 200, body: 'ok' },
        );
        try {
          const wh = await createWebhook(h, t.liveKey, { url: `${receiver().url}${path}` });
          const res = await h.request('POST', `/v1/webhooks/${wh.id}/test`, { key: t.liveKey });
          expect(res.status).toBe(200);
          expect(res.body).toMatchObject({
            delivered: false,
            status_code: 503,
            error: expect.stringMatching(/503/),
          });
          expect(requestsTo(path)[0]!.headers['webhook-signature']).toBeUndefined();
          const [delivery] = await listDeliveries(h, t.liveKey, wh.id);
          expect(delivery).toMatchObject({
            status: 'failed',
            attempt_count: 1,
            attempts: [{ status_code: 503 }],
          });
          // No retry is scheduled.
          await deliverDue(h);
          expect(requestsTo(path)).toHaveLength(1);
        } finally {
          receiver().respond(() => ({ status: 200, body: 'ok' }));
        }
      });

      it('an inactive webhook can be tested; an unreachable one fails with a network error', async () => {
        const t = await h.tenant();
        const wh = await createWebhook(h, t.liveKey, { url: `${receiver().url}${pathOf('inactive')}` });
        await h.request('PATCH', `/v1/webhooks/${wh.id}`, { key: t.liveKey, body: { active: false } });
        const res = await h.request('POST', `/v1/webhooks/${wh.id}/test`, { key: t.liveKey });
        expect(res.body.delivered).toBe(true);
        const closed = await createWebhook(h, t.liveKey, { url: 'http://127.0.0.1:1/hook' });
        const failed = await h.request('POST', `/v1/webhooks/${closed.id}/test`, { key: t.liveKey });
        expect(failed.status).toBe(200);
        expect(failed.body.delivered).toBe(false);
        expect(failed.body.status_code).toBeUndefined();
        expect(failed.body.error).toEqual(expect.any(String));
      });
    });

    describe('POST /v1/webhooks/:id/rotate-secret', () => {
      it('during the overlap both secrets sign (standardwebhooks verifies with either); X-Svc-Signature is the new one', async () => {
        const t = await h.tenant();
        const path = pathOf('rotate');
        const wh = await createWebhook(h, t.liveKey, { url: `${receiver().url}${path}`, secret: SECRET });
        const rotated = await rotate(h, t.liveKey, wh.id, { secret: NEW_SECRET, overlap_seconds: 3600 });
        expect(rotated.secret).toBeUndefined();
        const ends = Date.parse(rotated.previous_secret_expires_at!);
        expect(ends - Date.now()).toBeGreaterThan(3000 * 1000);
        expect(ends - Date.now()).toBeLessThanOrEqual(3600 * 1000);
        const got = await h.request('GET', `/v1/webhooks/${wh.id}`, { key: t.liveKey });
        expect(got.body.previous_secret_expires_at).toBe(rotated.previous_secret_expires_at);
        expect(JSON.stringify(got.body)).not.toContain(NEW_SECRET);

        await emit(h, t, 'note.created');
        await deliverDue(h);
        await h.request('POST', `/v1/webhooks/${wh.id}/test`, { key: t.liveKey });
        const requests = requestsTo(path);
        expect(requests).toHaveLength(2);
        for (const req of requests) {
          expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
          expect(verifiesWith(req, NEW_SECRET)).toBe(true);
          expect(verifiesWith(req, SECRET)).toBe(true);
          expect(verifiesWith(req, 'whsec_some_other_secret_0000')).toBe(false);
          expect(req.headers['x-svc-signature']).toBe(hexSignature(req, NEW_SECRET));
        }
      });

      it('after the overlap only the new secret signs', async () => {
        const t = await h.tenant();
        const path = pathOf('expired');
        const wh = await createWebhook(h, t.liveKey, { url: `${receiver().url}${path}`, secret: SECRET });
        await rotate(h, t.liveKey, wh.id, { secret: NEW_SECRET, overlap_seconds: 3600 });
        // The window ends (moved into the past rather than waited for).
        await h.deps.db
          .withTables<{ webhooks: { id: string; previous_secret_expires_at: string } }>()
          .updateTable('webhooks')
          .set({ previous_secret_expires_at: new Date(Date.now() - 1000).toISOString() })
          .where('id', '=', wh.id)
          .execute();
        const got = await h.request('GET', `/v1/webhooks/${wh.id}`, { key: t.liveKey });
        expect(got.body.previous_secret_expires_at).toBeUndefined();
        await emit(h, t, 'note.created');
        await deliverDue(h);
        const [req] = requestsTo(path);
        expect(req!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
        expect(verifiesWith(req!, NEW_SECRET)).toBe(true);
        expect(verifiesWith(req!, SECRET)).toBe(false);
      });

      it('generates a secret when none is given (shown once), keeps at most two, and PATCH cuts over at once', async () => {
        const t = await h.tenant();
        const path = pathOf('generated');
        const wh = await createWebhook(h, t.liveKey, { url: `${receiver().url}${path}`, secret: SECRET });
        const first = await rotate(h, t.liveKey, wh.id, {});
        expect(first.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
        expect(first.previous_secret_expires_at).toBeDefined();
        // Default overlap: WEBHOOKS_SECRET_OVERLAP_SECONDS (24 h).
        expect(Date.parse(first.previous_secret_expires_at!) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
        await rotate(h, t.liveKey, wh.id, { secret: NEW_SECRET });
        await h.request('POST', `/v1/webhooks/${wh.id}/test`, { key: t.liveKey });
        const [req] = requestsTo(path);
        expect(verifiesWith(req!, NEW_SECRET)).toBe(true);
        expect(verifiesWith(req!, first.secret!)).toBe(true);
        expect(verifiesWith(req!, SECRET)).toBe(false);

        const patched = await h.request('PATCH', `/v1/webhooks/${wh.id}`, {
          key: t.liveKey,
          body: { secret: 'whsec_patched_secret_0123456789' },
        });
        expect(patched.body.previous_secret_expires_at).toBeUndefined();
        await h.request('POST', `/v1/webhooks/${wh.id}/test`, { key: t.liveKey });
        const last = requestsTo(path).at(-1)!;
        expect(last.headers['webhook-signature']).not.toContain(' ');
        expect(verifiesWith(last, 'whsec_patched_secret_0123456789')).toBe(true);
        expect(verifiesWith(last, NEW_SECRET)).toBe(false);
      });

      it('overlap 0, and a webhook that had no secret, cut over at once', async () => {
        const t = await h.tenant();
        const signed = await createWebhook(h, t.liveKey, {
          url: `${receiver().url}${pathOf('zero')}`,
          secret: SECRET,
        });
        expect(
          (await rotate(h, t.liveKey, signed.id, { secret: NEW_SECRET, overlap_seconds: 0 }))
            .previous_secret_expires_at,
        ).toBeUndefined();
        const path = pathOf('unsigned');
        const unsigned = await createWebhook(h, t.liveKey, { url: `${receiver().url}${path}` });
        const res = await rotate(h, t.liveKey, unsigned.id, { secret: NEW_SECRET });
        expect(res).toEqual({ id: unsigned.id });
        await h.request('POST', `/v1/webhooks/${unsigned.id}/test`, { key: t.liveKey });
        const [req] = requestsTo(path);
        expect(verifySignatures(req!, NEW_SECRET)).toMatchObject({ type: 'webhook.test' });
      });
    });
  });
}
