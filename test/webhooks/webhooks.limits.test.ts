/**
 * Issue 11: what one key may do to the webhooks of its account. Control characters in URLs (item 9), the cap on
 * webhooks per account and mode (item 7), and what `webhooks:manage` alone may read by moving a webhook to
 * another URL (item 12).
 */
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { createWebhook, deliverDue, emit, listDeliveries, sampleData } from './fixtures.ts';
import { useReceiver } from './receiver.ts';

const MAX = 3;
const ENV = {
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOKS_RETRY_SCHEDULE: '60,60,60',
  WEBHOOKS_MAX_PER_ACCOUNT: String(MAX),
};

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect, ENV);
    const { receiver, pathOf, requestsTo } = useReceiver();

    describe('URLs with control characters or whitespace are refused (400 url)', () => {
      const cases: [string, string][] = [
        ['a tab in the host', 'https://hooks.example\t.evil.example/x'],
        ['a tab in the path', 'https://hooks.example/a\tb'],
        ['a line feed', 'https://hooks.example/x\n'],
        ['a carriage return', 'https://hooks.example\r/x'],
        ['CR LF in the path', 'https://hooks.example/x\r\nHost: other'],
        ['a NUL', 'https://hooks.example/\u0000x'],
        ['DEL', 'https://hooks.example/\u007fx'],
        ['a C1 control (NEL)', 'https://hooks.example/\u0085x'],
        ['a leading space', ' https://hooks.example/x'],
        ['a trailing tab', 'https://hooks.example/x\t'],
        ['a space in the path', 'https://hooks.example/a b'],
      ];
      it.each(cases)('POST: %s', async (_, url) => {
        const t = await h.tenant();
        const res = await h.request('POST', '/v1/webhooks', {
          key: t.liveKey,
          body: { url, events: ['note.created'] },
        });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.param).toBe('url');
        expect(res.body.error.message).toMatch(/control characters|NUL/);
      });

      it.each(cases)('PATCH: %s', async (_, url) => {
        const t = await h.tenant();
        const wh = await createWebhook(h, t.liveKey, { url: 'https://hooks.example/ok' });
        const res = await h.request('PATCH', `/v1/webhooks/${wh.id}`, { key: t.liveKey, body: { url } });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.param).toBe('url');
        const after = await h.request('GET', `/v1/webhooks/${wh.id}`, { key: t.liveKey });
        expect(after.body.url).toBe('https://hooks.example/ok');
      });

      it('a percent-encoded tab is an ordinary URL', async () => {
        const t = await h.tenant();
        await createWebhook(h, t.liveKey, { url: 'https://hooks.example/a%09b' });
      });
    });

    describe(`at most WEBHOOKS_MAX_PER_ACCOUNT (${MAX}) webhooks per account and mode`, () => {
      it('the next one is a 409 webhook_limit_reached; deleting one makes room; the other mode has its own', async () => {
        const t = await h.tenant();
        const made = [];
        for (let i = 0; i < MAX; i++)
          made.push(await createWebhook(h, t.liveKey, { url: `https://hooks.example/${i}` }));
        const over = await h.request('POST', '/v1/webhooks', {
          key: t.liveKey,
          body: { url: 'https://hooks.example/over', events: ['note.created'] },
        });
        expectApiError(over, 409, 'webhook_limit_reached');
        expect(over.body.error.type).toBe('conflict_error');
        expect(over.body.error.message).toMatch(new RegExp(`already has ${MAX} live webhooks`));
        const list = await h.request('GET', '/v1/webhooks', { key: t.liveKey });
        expect(list.body.data.map((w: { id: string }) => w.id)).toEqual(made.map((w) => w.id));

        // The test data space is counted apart.
        for (let i = 0; i < MAX; i++)
          await createWebhook(h, t.testKey, { url: `https://hooks.example/t${i}` });
        // Another account is not affected.
        const other = await h.tenant();
        await createWebhook(h, other.liveKey, { url: 'https://hooks.example/other' });

        const deleted = await h.request('DELETE', `/v1/webhooks/${made[0]!.id}`, { key: t.liveKey });
        expect(deleted.status).toBe(200);
        await createWebhook(h, t.liveKey, { url: 'https://hooks.example/again' });
      });

      it('concurrent creations do not pass the cap together', async () => {
        const t = await h.tenant();
        const results = await Promise.all(
          Array.from({ length: MAX + 4 }, (_, i) =>
            h.request('POST', '/v1/webhooks', {
              key: t.liveKey,
              body: { url: `https://hooks.example/c${i}`, events: ['note.created'] },
            }),
          ),
        );
        expect(results.filter((r) => r.status === 201)).toHaveLength(MAX);
        for (const r of results.filter((r) => r.status !== 201))
          expectApiError(r, 409, 'webhook_limit_reached');
        const list = await h.request('GET', '/v1/webhooks', { key: t.liveKey });
        expect(list.body.data).toHaveLength(MAX);
      });
    });

    describe('webhooks:manage alone cannot read past events by moving a webhook', () => {
      it('redelivering an event written before the URL changed needs the scope that reads it (403)', async () => {
        const t = await h.tenant();
        const manageOnly = await t.keyWithScopes(['webhooks:manage']);
        const first = pathOf('first');
        const wh = await createWebhook(h, manageOnly, { url: `${receiver().url}${first}` });
        const note = await emit(h, t, 'note.processed', sampleData('note.processed'));
        const item = await emit(h, t, 'action_item.created', sampleData('action_item.created'));
        await deliverDue(h);
        expect(requestsTo(first)).toHaveLength(2);
        const log = await listDeliveries(h, manageOnly, wh.id);
        const byEvent = (id: string) => log.find((d) => d.event_id === id)!.id;

        // Before any URL change: resending to the URL the event was first sent to is allowed.
        const same = await h.request(
          'POST',
          `/v1/webhooks/${wh.id}/deliveries/${byEvent(note.id)}/redeliver`,
          { key: manageOnly },
        );
        expect(same.status).toBe(202);
        await deliverDue(h);

        const second = pathOf('second');
        const moved = await h.request('PATCH', `/v1/webhooks/${wh.id}`, {
          key: manageOnly,
          body: { url: `${receiver().url}${second}` },
        });
        expect(moved.status).toBe(200);
        for (const [event, scope] of [
          [note.id, 'notes:read'],
          [item.id, 'actions:read'],
        ] as const) {
          const res = await h.request(
            'POST',
            `/v1/webhooks/${wh.id}/deliveries/${byEvent(event)}/redeliver`,
            { key: manageOnly },
          );
          expectApiError(res, 403, 'insufficient_scope');
          expect(res.body.error.message).toContain(`'${scope}'`);
        }
        await deliverDue(h);
        expect(requestsTo(second)).toHaveLength(0);

        // A key that may read notes may resend them to the new URL.
        const reader = await t.keyWithScopes(['webhooks:manage', 'notes:read']);
        const allowed = await h.request(
          'POST',
          `/v1/webhooks/${wh.id}/deliveries/${byEvent(note.id)}/redeliver`,
          { key: reader },
        );
        expect(allowed.status).toBe(202);
        // An event written after the change was meant for the new URL: manage alone may resend it.
        const later = await emit(h, t, 'note.created', sampleData('note.created'));
        await deliverDue(h);
        const laterDelivery = (await listDeliveries(h, manageOnly, wh.id)).find(
          (d) => d.event_id === later.id && !d.redelivery_of,
        )!;
        const again = await h.request(
          'POST',
          `/v1/webhooks/${wh.id}/deliveries/${laterDelivery.id}/redeliver`,
          { key: manageOnly },
        );
        expect(again.status).toBe(202);
        await deliverDue(h);
        expect(
          requestsTo(second)
            .map((r) => r.headers['webhook-id'])
            .sort(),
        ).toEqual([note.id, later.id, later.id].sort());
      });

      it('moving a webhook with retries pending: a key that cannot read them cancels them, one that can keeps them', async () => {
        const t = await h.tenant();
        const manageOnly = await t.keyWithScopes(['webhooks:manage']);
        const full = t.liveKey;
        for (const [key, kept] of [
          [manageOnly, false],
          [full, true],
        ] as const) {
          const down = pathOf('down');
          receiver().respond((req) => (req.path === down ? { status: 503 } : { status: 200 }));
          const wh = await createWebhook(h, full, { url: `${receiver().url}${down}` });
          await emit(h, t, 'note.processed', sampleData('note.processed'));
          await deliverDue(h);
          const [waiting] = await listDeliveries(h, full, wh.id);
          expect(waiting).toMatchObject({ status: 'pending', attempt_count: 1 });
          const res = await h.request('PATCH', `/v1/webhooks/${wh.id}`, {
            key,
            body: { url: `${receiver().url}${pathOf('elsewhere')}` },
          });
          expect(res.status).toBe(200);
          const [after] = await listDeliveries(h, full, wh.id);
          expect(after!.status).toBe(kept ? 'pending' : 'cancelled');
          await h.request('DELETE', `/v1/webhooks/${wh.id}`, { key: full });
        }
      });
    });
  });
}
