import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import { runDueDeliveries, startWebhookWorker } from '../../src/features/webhooks/webhook-worker.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import {
  createWebhook,
  deliverDue,
  emit,
  eventually,
  listDeliveries,
  SECRET,
  sleep,
  verifySignatures,
} from './fixtures.ts';
import { useReceiver } from './receiver.ts';

const PERMISSIVE = { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_RETRY_SCHEDULE: '0.2,0.4,0.8' };

const PRIVATE_URLS = [
  'https://127.0.0.1/hook',
  'https://127.1.2.3:8443/hook',
  'https://10.0.0.1/hook',
  'https://172.16.5.4/hook',
  'https://192.168.0.10/hook',
  'https://169.254.169.254/latest/meta-data/',
  'https://100.64.1.1/hook',
  'https://0.0.0.0/hook',
  'https://224.0.0.251/hook',
  'https://198.18.0.1/hook',
  'https://2130706433/hook',
  'https://0x7f000001/hook',
  'https://[::1]/hook',
  'https://[::]/hook',
  'https://[fe80::1]/hook',
  'https://[fd00:ec2::254]/latest/meta-data/',
  'https://[fc00::5]/hook',
  'https://[ff02::1]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://[::ffff:a9fe:a9fe]/hook',
  'https://[64:ff9b::a00:1]/hook',
];

/** Host names: accepted at creation, judged at delivery by what they resolve to (API.md, Precise rules). */
const LOCAL_NAMES = ['https://localhost/hook', 'https://LOCALHOST./h', 'https://metadata.localhost/hook'];

/** The attempt log says the target was refused, never what the host name resolved to (issue 11). */
const LOOPBACK_REFUSED = /^Refused: no public address\.(?!.*(127\.0\.0\.1|::1))/;

/** A logger that keeps every line, at the most verbose level. */
function captureLogs() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: pino({ level: 'trace', base: undefined }, stream) };
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    describe('strict server (default settings)', () => {
      const h = useHarness(dialect, { WEBHOOKS_RETRY_SCHEDULE: '0.2,0.4,0.8' });
      const { receiver: currentReceiver, pathOf, requestsTo } = useReceiver();

      it.each(PRIVATE_URLS)('POST refuses %s with 400 on url', async (url) => {
        const t = await h.tenant();
        const res = await h.request('POST', '/v1/webhooks', {
          key: t.liveKey,
          body: { url, events: ['note.created'] },
        });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.param).toBe('url');
        expect((await h.request('GET', '/v1/webhooks', { key: t.liveKey })).body.data).toEqual([]);
      });

      it.each(LOCAL_NAMES)('POST accepts the host name %s (201): it is judged at delivery', async (url) => {
        const t = await h.tenant();
        const wh = await createWebhook(h, t.liveKey, { url });
        expect(wh.url).toBe(url);
        expect((await h.request('GET', '/v1/webhooks', { key: t.liveKey })).body.data).toHaveLength(1);
      });

      it('PATCH accepts a localhost name as the new url', async () => {
        const t = await h.tenant();
        const wh = await createWebhook(h, t.liveKey, { url: 'https://example.com/hook' });
        const res = await h.request('PATCH', `/v1/webhooks/${wh.id}`, {
          key: t.liveKey,
          body: { url: 'https://api.localhost/hook' },
        });
        expect(res.status).toBe(200);
        expect(res.body.url).toBe('https://api.localhost/hook');
      });

      it('https://localhost is refused at delivery: every attempt is logged as failed and retried, nothing is sent', async () => {
        const t = await h.tenant();
        const path = pathOf('localhost');
        const wh = await createWebhook(h, t.liveKey, {
          url: `https://localhost:${currentReceiver().port}${path}`,
        });
        const event = await emit(h, t, 'note.created');
        await runDueDeliveries(h.deps);
        const [first] = await listDeliveries(h, t.liveKey, wh.id);
        expect(first).toMatchObject({ event_id: event.id, status: 'pending', attempt_count: 1 });
        expect(first!.next_attempt_at).toBeDefined();
        expect(first!.attempts[0]!.status_code).toBeUndefined();
        expect(first!.attempts[0]!.error).toMatch(LOOPBACK_REFUSED);
        const worker = startWebhookWorker({
          ...h.deps,
          config: { ...h.deps.config, webhookDelivery: { ...h.deps.config.webhookDelivery, pollMs: 20 } },
        });
        try {
          const [delivery] = await eventually(async () => {
            const log = await listDeliveries(h, t.liveKey, wh.id);
            return log[0]?.status === 'failed' ? log : undefined;
          });
          expect(delivery!.attempt_count).toBe(4);
          expect(delivery!.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
          for (const attempt of delivery!.attempts) {
            expect(attempt.status_code).toBeUndefined();
            expect(attempt.error).toMatch(LOOPBACK_REFUSED);
          }
          expect(delivery!.next_attempt_at).toBeUndefined();
        } finally {
          await worker.stop();
        }
        await sleep(100);
        expect(requestsTo(path)).toEqual([]);
        // Refused targets do not touch the webhook: it stays active, as after any failure.
        expect((await h.request('GET', `/v1/webhooks/${wh.id}`, { key: t.liveKey })).body.active).toBe(true);
      });

      it('PATCH refuses a private URL and keeps the old one', async () => {
        const t = await h.tenant();
        const wh = await createWebhook(h, t.liveKey, { url: 'https://example.com/hook' });
        for (const url of ['https://127.0.0.1/x', 'https://[::ffff:10.0.0.1]/x', 'http://example.com/x']) {
          expectApiError(
            await h.request('PATCH', `/v1/webhooks/${wh.id}`, { key: t.liveKey, body: { url } }),
            400,
            'parameter_invalid',
          );
        }
        expect((await h.request('GET', `/v1/webhooks/${wh.id}`, { key: t.liveKey })).body.url).toBe(
          'https://example.com/hook',
        );
      });

      it('refuses http:// URLs: https only unless WEBHOOKS_ALLOW_PRIVATE_TARGETS=true', async () => {
        const t = await h.tenant();
        const res = await h.request('POST', '/v1/webhooks', {
          key: t.liveKey,
          body: { url: 'http://example.com/hook', events: ['note.created'] },
        });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.message).toMatch(/https/);
      });

      it('accepts a public https URL', async () => {
        const t = await h.tenant();
        await createWebhook(h, t.liveKey, { url: 'https://hooks.example.com/minutes' });
      });
    });

    describe('allow-list (WEBHOOKS_ALLOW_HOSTS)', () => {
      const h = useHarness(dialect, { WEBHOOKS_ALLOW_HOSTS: '10.0.0.0/8, hooks.localhost' });

      it('opens the listed ranges and names, nothing else, and still requires https', async () => {
        const t = await h.tenant();
        await createWebhook(h, t.liveKey, { url: 'https://10.1.2.3/hook' });
        await createWebhook(h, t.liveKey, { url: 'https://hooks.localhost/hook' });
        for (const url of ['https://192.168.1.1/hook', 'https://127.0.0.1/hook', 'http://10.1.2.3/hook']) {
          expectApiError(
            await h.request('POST', '/v1/webhooks', {
              key: t.liveKey,
              body: { url, events: ['note.created'] },
            }),
            400,
          );
        }
      });
    });

    describe('permissive server (tests)', () => {
      const h = useHarness(dialect, PERMISSIVE);
      const { receiver: currentReceiver, pathOf, requestsTo } = useReceiver();
      const strictDeps = (): Deps => ({
        ...h.deps,
        config: { ...h.deps.config, webhooks: { ...h.deps.config.webhooks, allowPrivateTargets: false } },
      });

      it('at delivery, a host name resolving to loopback is refused and logged as a failed attempt', async () => {
        const t = await h.tenant();
        const path = pathOf('dns');
        // Created on the permissive server; delivered by a worker with the default (strict) settings.
        const wh = await createWebhook(h, t.liveKey, {
          url: `https://localhost:${currentReceiver().port}${path}`,
        });
        await emit(h, t, 'note.created');
        await runDueDeliveries(strictDeps());
        expect(requestsTo(path)).toEqual([]);
        const [delivery] = await listDeliveries(h, t.liveKey, wh.id);
        expect(delivery!.status).toBe('pending');
        expect(delivery!.attempts[0]!.status_code).toBeUndefined();
        expect(delivery!.attempts[0]!.error).toMatch(LOOPBACK_REFUSED);
      });

      it('at delivery, an http:// or private-literal target is refused when the server no longer allows it', async () => {
        const t = await h.tenant();
        const path = pathOf('literal');
        const wh = await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
        await emit(h, t, 'note.created');
        await runDueDeliveries(strictDeps());
        expect(requestsTo(path)).toEqual([]);
        const [delivery] = await listDeliveries(h, t.liveKey, wh.id);
        expect(delivery!.attempts[0]!.error).toMatch(/Refused to connect.*https/);
      });

      it("another account's webhook and delivery ids are 404 on every route, and nothing changes", async () => {
        const owner = await h.tenant();
        const intruder = await h.tenant();
        const path = pathOf('owned');
        const wh = await createWebhook(h, owner.liveKey, {
          url: `${currentReceiver().url}${path}`,
          secret: SECRET,
        });
        await emit(h, owner, 'note.created');
        await deliverDue(h);
        const [delivery] = await listDeliveries(h, owner.liveKey, wh.id);
        const own = await h.request('GET', `/v1/webhooks/${wh.id}`, { key: owner.liveKey });
        for (const key of [intruder.liveKey, intruder.testKey, owner.testKey]) {
          for (const [method, url, body] of [
            ['GET', `/v1/webhooks/${wh.id}`, undefined],
            ['PATCH', `/v1/webhooks/${wh.id}`, { url: 'https://attacker.example/x', active: false }],
            ['DELETE', `/v1/webhooks/${wh.id}`, undefined],
            ['GET', `/v1/webhooks/${wh.id}/deliveries`, undefined],
            ['POST', `/v1/webhooks/${wh.id}/deliveries/${delivery!.id}/redeliver`, undefined],
          ] as const) {
            expectApiError(await h.request(method, url, { key, body }), 404, 'resource_not_found');
          }
          expect((await h.request('GET', '/v1/webhooks', { key })).body.data).toEqual([]);
        }
        expect((await h.request('GET', `/v1/webhooks/${wh.id}`, { key: owner.liveKey })).body).toEqual(
          own.body,
        );
        expect(await listDeliveries(h, owner.liveKey, wh.id)).toHaveLength(1);
        expect(requestsTo(path)).toHaveLength(1);
      });

      it("the 404 for another account's webhook reads like the 404 for an id that never existed", async () => {
        const owner = await h.tenant();
        const intruder = await h.tenant();
        const wh = await createWebhook(h, owner.liveKey, { url: 'https://example.com/x' });
        const missing = `wh_${'A'.repeat(24)}`;
        const theirs = await h.request('GET', `/v1/webhooks/${wh.id}`, { key: intruder.liveKey });
        const none = await h.request('GET', `/v1/webhooks/${missing}`, { key: intruder.liveKey });
        const strip = (b: { error: Record<string, string> }, id: string) => ({
          ...b.error,
          request_id: undefined,
          message: b.error.message!.replace(id, '<id>'),
        });
        expect(strip(theirs.body, wh.id)).toEqual(strip(none.body, missing));
      });

      it('live and test webhooks are separate spaces', async () => {
        const t = await h.tenant();
        const live = await createWebhook(h, t.liveKey, { url: 'https://example.com/live' });
        const test = await createWebhook(h, t.testKey, { url: 'https://example.com/test' });
        expect(
          (await h.request('GET', '/v1/webhooks', { key: t.liveKey })).body.data.map((w: any) => w.id),
        ).toEqual([live.id]);
        expect(
          (await h.request('GET', '/v1/webhooks', { key: t.testKey })).body.data.map((w: any) => w.id),
        ).toEqual([test.id]);
      });

      it('the secret appears in no response, no error and no log line, while deliveries are signed with it', async () => {
        const capture = captureLogs();
        const original = h.deps.logger;
        h.deps.logger = capture.logger;
        try {
          const t = await h.tenant();
          const path = pathOf('secret');
          const second = 'whsec_rotated_SECRET_value_42';
          const bad = 'too-short-secret';
          currentReceiver().respond((req) =>
            req.path === path && requestsTo(path).length === 1 ? { status: 500 } : { status: 200 },
          );
          const texts: string[] = [];
          const created = await h.request('POST', '/v1/webhooks', {
            key: t.liveKey,
            body: {
              url: `${currentReceiver().url}${path}`,
              events: ['note.created', 'note.processed'],
              secret: SECRET,
            },
          });
          texts.push(created.text);
          const id = created.body.id;
          texts.push((await h.request('GET', '/v1/webhooks', { key: t.liveKey })).text);
          texts.push((await h.request('GET', `/v1/webhooks/${id}`, { key: t.liveKey })).text);
          const rejected = await h.request('PATCH', `/v1/webhooks/${id}`, {
            key: t.liveKey,
            body: { secret: bad.slice(0, 10) },
          });
          expect(rejected.status).toBe(400);
          texts.push(rejected.text);
          const rejectedCreate = await h.request('POST', '/v1/webhooks', {
            key: t.liveKey,
            body: {
              url: `${currentReceiver().url}${path}`,
              events: ['note.created'],
              secret: `${bad} with a\nnewline`,
            },
          });
          expect(rejectedCreate.status).toBe(400);
          texts.push(rejectedCreate.text);
          await emit(h, t, 'note.created');
          await runDueDeliveries(h.deps);
          await new Promise((r) => setTimeout(r, 300));
          await runDueDeliveries(h.deps);
          texts.push(
            (await h.request('PATCH', `/v1/webhooks/${id}`, { key: t.liveKey, body: { secret: second } }))
              .text,
          );
          await emit(h, t, 'note.processed');
          await runDueDeliveries(h.deps);
          texts.push((await h.request('GET', `/v1/webhooks/${id}/deliveries`, { key: t.liveKey })).text);

          const received = requestsTo(path);
          expect(received).toHaveLength(3);
          verifySignatures(received[1]!, SECRET);
          verifySignatures(received[2]!, second);
          const logText = capture.lines.join('');
          expect(logText).toMatch(/webhook delivered/);
          expect(logText).toMatch(/will retry/);
          for (const secret of [SECRET, second, bad, bad.slice(0, 10)]) {
            for (const text of texts) expect(text).not.toContain(secret);
            expect(logText).not.toContain(secret);
          }
          // Nor do the signatures derived from it.
          for (const r of received) {
            expect(logText).not.toContain(r.headers['x-svc-signature']!);
            expect(logText).not.toContain(r.headers['webhook-signature']!.slice(3));
          }
        } finally {
          h.deps.logger = original;
        }
      });
    });
  });
}
