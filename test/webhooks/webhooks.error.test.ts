import { describe, expect, it } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import { deliveriesRepo } from '../../src/features/webhooks/delivery/deliveries.repo.ts';
import { runDueDeliveries, startWebhookWorker } from '../../src/features/webhooks/webhook-worker.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { freshId } from '../helpers/routes.ts';
import { sendRaw } from '../helpers/send-raw.ts';
import { createWebhook, deliverDue, emit, eventually, listDeliveries, SECRET, sleep } from './fixtures.ts';
import { startReceiver, useReceiver } from './receiver.ts';

const SCHEDULE = [0.2, 0.4, 0.8];
const ENV = { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_RETRY_SCHEDULE: SCHEDULE.join(',') };

/** A webhook body that is valid but for its secret. */
const withSecret = (secret: unknown) => ({ url: 'https://example.com/x', events: ['note.created'], secret });

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect, ENV);
    const { receiver: currentReceiver, pathOf, requestsTo } = useReceiver();
    /** Answers `status` on the first `times` requests to `path`, then 200; other paths get 200. */
    const failFirst = (path: string, times: number, status: number, headers?: Record<string, string>) => {
      currentReceiver().respond((req) => {
        if (req.path !== path) return { status: 200, body: 'ok' };
        return requestsTo(path).length <= times
          ? { status, body: `failure ${status}`, headers }
          : { status: 200, body: 'ok' };
      });
    };
    /** The harness's deps with other delivery settings (same database). */
    const depsWith = (delivery: Partial<Deps['config']['webhookDelivery']>): Deps => ({
      ...h.deps,
      config: { ...h.deps.config, webhookDelivery: { ...h.deps.config.webhookDelivery, ...delivery } },
    });

    describe('validation', () => {
      it.each([
        ['no url', { events: ['note.created'] }, 'parameter_missing', 'url'],
        ['an empty url', { url: '', events: ['note.created'] }, 'parameter_invalid', 'url'],
        [
          'a url that is not a URL',
          { url: 'not a url', events: ['note.created'] },
          'parameter_invalid',
          'url',
        ],
        ['an ftp url', { url: 'ftp://example.com/x', events: ['note.created'] }, 'parameter_invalid', 'url'],
        [
          'a url with credentials',
          { url: 'https://u:p@example.com/x', events: ['note.created'] },
          'parameter_invalid',
          'url',
        ],
        [
          'a url over 2048 characters',
          { url: `https://example.com/${'a'.repeat(2048)}`, events: ['note.created'] },
          'parameter_invalid',
          'url',
        ],
        ['no events', { url: 'https://example.com/x' }, 'parameter_missing', 'events'],
        ['empty events', { url: 'https://example.com/x', events: [] }, 'parameter_invalid', 'events'],
        [
          'an unknown event type',
          { url: 'https://example.com/x', events: ['note.deleted'] },
          'parameter_invalid',
          'events.0',
        ],
        [
          'events as a string',
          { url: 'https://example.com/x', events: 'note.created' },
          'parameter_invalid',
          'events',
        ],
        ['a secret of 15 characters', withSecret('a'.repeat(15)), 'parameter_invalid', 'secret'],
        ['a secret of 257 characters', withSecret('a'.repeat(257)), 'parameter_invalid', 'secret'],
        [
          'a secret of 15 code points (30 UTF-16 code units)',
          withSecret('🔑'.repeat(15)),
          'parameter_invalid',
          'secret',
        ],
        ['a secret of 257 code points', withSecret('秘'.repeat(257)), 'parameter_invalid', 'secret'],
        ['a secret with a newline', withSecret('line one of it\nline two'), 'parameter_invalid', 'secret'],
        ['a secret with a tab', withSecret('tab\tseparated-secret'), 'parameter_invalid', 'secret'],
        [
          'a secret with a NUL character',
          withSecret('nul\u0000in-the-secret'),
          'parameter_invalid',
          'secret',
        ],
        ['a secret with DEL', withSecret('del\u007fin-the-secret'), 'parameter_invalid', 'secret'],
        [
          'a secret with a lone surrogate',
          withSecret('lone\ud800surrogate-secret'),
          'parameter_invalid',
          'secret',
        ],
        ['a secret that is a number', withSecret(1234567890123456), 'parameter_invalid', 'secret'],
        [
          'an unknown field',
          { url: 'https://example.com/x', events: ['note.created'], active: true },
          'parameter_unknown',
          'active',
        ],
      ])('POST 400 for %s', async (_, body, code, param) => {
        const t = await h.tenant();
        const res = await h.request('POST', '/v1/webhooks', { key: t.liveKey, body });
        expectApiError(res, 400, code);
        expect(res.body.error.param).toBe(param);
        expect((await h.request('GET', '/v1/webhooks', { key: t.liveKey })).body.data).toEqual([]);
      });

      it.each([
        ['an empty body', {}],
        ['events: []', { events: [] }],
        ['active as a string', { active: 'false' }],
        ['a short secret', { secret: 'short' }],
        ['a secret with a newline', { secret: 'a long enough secret\nwith a newline' }],
        ['an unknown field', { enabled: false }],
        ['an ftp url', { url: 'ftp://example.com' }],
      ])('PATCH 400 for %s, and the webhook is unchanged', async (_, body) => {
        const t = await h.tenant();
        const wh = await createWebhook(h, t.liveKey, { url: 'https://example.com/x' });
        const res = await h.request('PATCH', `/v1/webhooks/${wh.id}`, { key: t.liveKey, body });
        expectApiError(res, 400);
        expect((await h.request('GET', `/v1/webhooks/${wh.id}`, { key: t.liveKey })).body).toEqual(wh);
      });

      it.each([
        ['too short', 'x'.repeat(15), /16–256 characters/],
        ['too long', '秘'.repeat(257), /16–256 characters/],
        ['with a control character', 'secret-with\u0007bell-char', /control characters/],
      ])('a secret %s is a 400 on secret that names the rule, never the value', async (_, secret, rule) => {
        const t = await h.tenant();
        const res = await h.request('POST', '/v1/webhooks', {
          key: t.liveKey,
          body: { url: 'https://example.com/x', events: ['note.created'], secret },
        });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.param).toBe('secret');
        expect(res.body.error.message).toMatch(rule);
        expect(res.text).not.toContain(secret);
      });

      it('400 for a malformed JSON body and 415 for a non-JSON content type', async () => {
        const t = await h.tenant();
        expectApiError(
          await sendRaw(h, 'POST', '/v1/webhooks', t.liveKey, '{"url":', 'application/json'),
          400,
          'body_invalid_json',
        );
        expectApiError(
          await sendRaw(h, 'POST', '/v1/webhooks', t.liveKey, 'url=x', 'text/plain'),
          415,
          'unsupported_media_type',
        );
      });

      it('400 for out-of-range paging and an unknown status filter on the deliveries log', async () => {
        const t = await h.tenant();
        const wh = await createWebhook(h, t.liveKey, { url: 'https://example.com/x' });
        for (const q of ['per_page=0', 'per_page=101', 'page=0', 'status=done']) {
          expectApiError(
            await h.request('GET', `/v1/webhooks/${wh.id}/deliveries?${q}`, { key: t.liveKey }),
            400,
          );
        }
      });
    });

    describe('not found', () => {
      it('404 resource_not_found for unknown webhook and delivery ids on every route', async () => {
        const t = await h.tenant();
        const missing = freshId('wh_');
        for (const [method, path, body] of [
          ['GET', `/v1/webhooks/${missing}`, undefined],
          ['PATCH', `/v1/webhooks/${missing}`, { active: false }],
          ['DELETE', `/v1/webhooks/${missing}`, undefined],
          ['GET', `/v1/webhooks/${missing}/deliveries`, undefined],
          ['POST', `/v1/webhooks/${missing}/deliveries/${freshId('dlv_')}/redeliver`, undefined],
        ] as const) {
          expectApiError(await h.request(method, path, { key: t.liveKey, body }), 404, 'resource_not_found');
        }
        const wh = await createWebhook(h, t.liveKey, { url: 'https://example.com/x' });
        expectApiError(
          await h.request('POST', `/v1/webhooks/${wh.id}/deliveries/${freshId('dlv_')}/redeliver`, {
            key: t.liveKey,
          }),
          404,
          'resource_not_found',
        );
      });

      it('a second DELETE is a 404', async () => {
        const t = await h.tenant();
        const wh = await createWebhook(h, t.liveKey, { url: 'https://example.com/x' });
        expect((await h.request('DELETE', `/v1/webhooks/${wh.id}`, { key: t.liveKey })).status).toBe(200);
        expectApiError(
          await h.request('DELETE', `/v1/webhooks/${wh.id}`, { key: t.liveKey }),
          404,
          'resource_not_found',
        );
      });

      it('a delivery id of another webhook is a 404 on redeliver', async () => {
        const t = await h.tenant();
        const path = pathOf('other');
        const a = await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
        const b = await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
        await emit(h, t, 'note.created');
        await deliverDue(h);
        const [ofA] = await listDeliveries(h, t.liveKey, a.id);
        expectApiError(
          await h.request('POST', `/v1/webhooks/${b.id}/deliveries/${ofA!.id}/redeliver`, { key: t.liveKey }),
          404,
          'resource_not_found',
        );
      });
    });

    describe('failures and retries', () => {
      it('retries a 500 on the configured schedule with jitter, then succeeds; every attempt is logged', async () => {
        const t = await h.tenant();
        const path = pathOf('retry');
        failFirst(path, 2, 500);
        const wh = await createWebhook(h, t.liveKey, {
          url: `${currentReceiver().url}${path}`,
          secret: SECRET,
        });
        const event = await emit(h, t, 'note.created');
        const worker = startWebhookWorker(depsWith({ pollMs: 20 }));
        try {
          await eventually(async () => requestsTo(path).length >= 3, 10_000);
          const times = requestsTo(path).map((r) => r.receivedAt);
          expect(requestsTo(path).map((r) => r.headers['webhook-id'])).toEqual([
            event.id,
            event.id,
            event.id,
          ]);
          // Waits of 200 ms then 400 ms, stretched by at most 20% jitter (plus polling and scheduling slack).
          expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(190);
          expect(times[1]! - times[0]!).toBeLessThan(200 * 1.2 + 400);
          expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(390);
          expect(times[2]! - times[1]!).toBeLessThan(400 * 1.2 + 400);
          const [delivery] = await eventually(async () => {
            const log = await listDeliveries(h, t.liveKey, wh.id);
            return log[0]?.status === 'succeeded' ? log : undefined;
          });
          expect(delivery!.attempt_count).toBe(3);
          expect(delivery!.attempts.map((a) => [a.attempt, a.status_code, a.response_body])).toEqual([
            [1, 500, 'failure 500'],
            [2, 500, 'failure 500'],
            [3, 200, 'ok'],
          ]);
          expect(delivery!.attempts[0]!.error).toMatch(/500/);
          expect(delivery!.attempts[2]!.error).toBeUndefined();
        } finally {
          await worker.stop();
        }
      });

      it('gives up after 3 retries (4 attempts) and marks the delivery failed', async () => {
        const t = await h.tenant();
        const path = pathOf('exhaust');
        failFirst(path, 100, 503);
        const wh = await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
        await emit(h, t, 'note.created');
        const worker = startWebhookWorker(depsWith({ pollMs: 20 }));
        try {
          const [delivery] = await eventually(async () => {
            const log = await listDeliveries(h, t.liveKey, wh.id);
            return log[0]?.status === 'failed' ? log : undefined;
          });
          expect(delivery!.attempt_count).toBe(4);
          expect(delivery!.attempts.map((a) => a.status_code)).toEqual([503, 503, 503, 503]);
          expect(delivery!.next_attempt_at).toBeUndefined();
          await sleep(1200);
          expect(requestsTo(path)).toHaveLength(4);
        } finally {
          await worker.stop();
        }
      });

      it('a receiver that never answers times out (WEBHOOKS_TIMEOUT_MS) and the attempt is logged as failed', async () => {
        const t = await h.tenant();
        const path = pathOf('hang');
        currentReceiver().respond((req) => (req.path === path ? { hang: true } : { status: 200 }));
        const wh = await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
        await emit(h, t, 'note.created');
        const started = Date.now();
        await runDueDeliveries(depsWith({ timeoutMs: 300 }));
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(requestsTo(path)).toHaveLength(1);
        const [delivery] = await listDeliveries(h, t.liveKey, wh.id);
        expect(delivery!.status).toBe('pending');
        expect(delivery!.next_attempt_at).toBeDefined();
        const [attempt] = delivery!.attempts;
        expect(attempt!.status_code).toBeUndefined();
        expect(attempt!.error).toMatch(/300 ms/);
        expect(attempt!.duration_ms).toBeGreaterThanOrEqual(290);
        expect(attempt!.duration_ms).toBeLessThan(3_000);
      });

      it.each([301, 302, 303, 307, 308])(
        'a %i redirect is not followed and counts as a failure',
        async (status) => {
          const t = await h.tenant();
          const path = pathOf('redirect');
          const target = pathOf('redirect-target');
          failFirst(path, 100, status, { location: `${currentReceiver().url}${target}` });
          const wh = await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
          await emit(h, t, 'note.created');
          await deliverDue(h);
          expect(requestsTo(path)).toHaveLength(1);
          expect(requestsTo(target)).toHaveLength(0);
          const [delivery] = await listDeliveries(h, t.liveKey, wh.id);
          expect(delivery!.status).toBe('pending');
          expect(delivery!.attempts[0]).toMatchObject({ status_code: status });
          expect(delivery!.attempts[0]!.error).toMatch(/redirects are not followed/);
        },
      );

      it('410 Gone is an ordinary failure: retried on the schedule, the webhook stays active', async () => {
        const t = await h.tenant();
        const path = pathOf('gone');
        failFirst(path, 100, 410);
        const wh = await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
        const first = await emit(h, t, 'note.created');
        const second = await emit(h, t, 'note.created');
        const worker = startWebhookWorker(depsWith({ pollMs: 20 }));
        try {
          const log = await eventually(async () => {
            const all = await listDeliveries(h, t.liveKey, wh.id);
            return all.length === 2 && all.every((d) => d.status === 'failed') ? all : undefined;
          });
          for (const delivery of log) {
            expect(delivery.attempt_count).toBe(4);
            expect(delivery.attempts.map((a) => a.status_code)).toEqual([410, 410, 410, 410]);
            expect(delivery.attempts[0]!.error).toBe('The receiver answered 410, not a 2xx status.');
          }
          expect(log.map((d) => d.event_id).sort()).toEqual([first.id, second.id].sort());
          expect(requestsTo(path)).toHaveLength(8);
          const after = await h.request('GET', `/v1/webhooks/${wh.id}`, { key: t.liveKey });
          expect(after.body.active).toBe(true);
          // Later events still go out, and a retry after a 410 can succeed.
          failFirst(path, requestsTo(path).length + 1, 410);
          const third = await emit(h, t, 'note.created');
          const [delivery] = await eventually(async () => {
            const all = await listDeliveries(h, t.liveKey, wh.id, `event_id=${third.id}`);
            return all[0]?.status === 'succeeded' ? all : undefined;
          });
          expect(delivery!.attempts.map((a) => a.status_code)).toEqual([410, 200]);
        } finally {
          await worker.stop();
        }
      });

      it('a refused connection is a failed attempt with a readable error', async () => {
        const t = await h.tenant();
        const closed = await startReceiver();
        const url = `${closed.url}/nobody`;
        await closed.close();
        const wh = await createWebhook(h, t.liveKey, { url });
        await emit(h, t, 'note.created');
        await deliverDue(h);
        const [delivery] = await listDeliveries(h, t.liveKey, wh.id);
        expect(delivery!.status).toBe('pending');
        expect(delivery!.attempts[0]!.error).toBe('Connection refused.');
        expect(delivery!.attempts[0]!.status_code).toBeUndefined();
      });

      it('a long response body is logged cut to 1 KiB, ending in …', async () => {
        const t = await h.tenant();
        const path = pathOf('long');
        currentReceiver().respond((req) =>
          req.path === path ? { status: 500, body: 'x'.repeat(5000) } : { status: 200 },
        );
        const wh = await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
        await emit(h, t, 'note.created');
        await deliverDue(h);
        const [delivery] = await listDeliveries(h, t.liveKey, wh.id);
        expect(delivery!.attempts[0]!.response_body).toBe(`${'x'.repeat(1024)}…`);
      });
    });

    describe('deactivation and deletion', () => {
      it('PATCH active: false cancels waiting deliveries; nothing is sent, also not after reactivation', async () => {
        const t = await h.tenant();
        const path = pathOf('inactive');
        const wh = await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
        await emit(h, t, 'note.created');
        await emit(h, t, 'note.processed');
        // Fan out without sending: the deliveries exist and wait.
        const { fanOutEvents } = await import('../../src/features/webhooks/delivery/fan-out-events.ts');
        await fanOutEvents(h.deps.db, h.deps.dialect);
        const off = await h.request('PATCH', `/v1/webhooks/${wh.id}`, {
          key: t.liveKey,
          body: { active: false },
        });
        expect(off.body.active).toBe(false);
        await emit(h, t, 'note.created');
        await deliverDue(h);
        expect(requestsTo(path)).toEqual([]);
        const log = await listDeliveries(h, t.liveKey, wh.id);
        expect(log.map((d) => d.status)).toEqual(['cancelled', 'cancelled']);
        expectApiError(
          await h.request('POST', `/v1/webhooks/${wh.id}/deliveries/${log[0]!.id}/redeliver`, {
            key: t.liveKey,
          }),
          400,
          'parameter_invalid',
        );
        await h.request('PATCH', `/v1/webhooks/${wh.id}`, { key: t.liveKey, body: { active: true } });
        await deliverDue(h);
        expect(requestsTo(path)).toEqual([]);
        const next = await emit(h, t, 'note.created');
        await deliverDue(h);
        expect(requestsTo(path).map((r) => r.headers['webhook-id'])).toEqual([next.id]);
      });

      it('DELETE cancels pending deliveries: a retry that was scheduled is never sent', async () => {
        const t = await h.tenant();
        const path = pathOf('deleted');
        failFirst(path, 100, 500);
        const wh = await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
        await emit(h, t, 'note.created');
        await deliverDue(h);
        expect(requestsTo(path)).toHaveLength(1);
        expect((await h.request('DELETE', `/v1/webhooks/${wh.id}`, { key: t.liveKey })).status).toBe(200);
        await sleep(300);
        await deliverDue(h);
        await emit(h, t, 'note.created');
        await deliverDue(h);
        expect(requestsTo(path)).toHaveLength(1);
      });
    });

    describe('a worker that dies mid-attempt', () => {
      it('the expired lease is taken over: the event is sent again and the lost attempt is logged', async () => {
        const t = await h.tenant();
        const path = pathOf('lost');
        currentReceiver().respond(() => ({ status: 200, body: 'ok' }));
        const wh = await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
        const event = await emit(h, t, 'note.created');
        const { fanOutEvents } = await import('../../src/features/webhooks/delivery/fan-out-events.ts');
        await fanOutEvents(h.deps.db, h.deps.dialect);
        // A worker claims the delivery and dies: its lease runs out without an outcome.
        const now = Date.now();
        const claimed = await deliveriesRepo.claim(h.deps.db, h.deps.dialect, {
          workerId: 'dead-worker',
          now: new Date(now).toISOString(),
          lockedUntil: new Date(now + 100).toISOString(),
          limit: 100,
        });
        expect(claimed.map((d) => d.event_id)).toContain(event.id);
        await deliverDue(h);
        expect(requestsTo(path)).toHaveLength(0);
        await sleep(150);
        await deliverDue(h);
        expect(requestsTo(path).map((r) => r.headers['webhook-id'])).toEqual([event.id]);
        const [delivery] = await listDeliveries(h, t.liveKey, wh.id);
        expect(delivery!.status).toBe('succeeded');
        expect(delivery!.attempt_count).toBe(2);
        expect(delivery!.attempts[0]).toMatchObject({ attempt: 1 });
        expect(delivery!.attempts[0]!.error).toMatch(/worker stopped/);
        expect(delivery!.attempts[1]).toMatchObject({ attempt: 2, status_code: 200 });
      });
    });
  });
}
