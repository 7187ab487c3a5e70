import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import {
  ALL_EVENTS,
  createWebhook,
  DELIVERY_ID,
  deliverDue,
  EVENT_ID,
  emit,
  ISO_UTC,
  listDeliveries,
  SECRET,
  sampleData,
  verifySignatures,
  WEBHOOK_ID,
} from './fixtures.ts';
import { useReceiver } from './receiver.ts';

const ENV = { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_RETRY_SCHEDULE: '0.2,0.4,0.8' };

/** Secrets are 16–256 code points of any characters but control characters (API.md). */
const SPACED_SECRET = 'correct horse battery staple 42';
const UNICODE_SECRET = 'clé secrète — ünïcödé Ω 秘密の鍵 🔑';

const TRANSCRIPT = [
  'Alice: Welcome to the planning meeting. The budget review is on the agenda.',
  "Bob: I'll send the updated budget report to finance by Friday.",
  'Alice: Bob, can you also book the room for the offsite next week?',
  'Carol: I will draft the hiring plan and share it with everyone tomorrow.',
  'Alice: Great, thanks everyone.',
].join('\n');

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect, ENV);
    /** A receiver path of its own per test, so tests never see each other's requests. */
    const { receiver: currentReceiver, pathOf, requestsTo } = useReceiver();

    describe('POST /v1/webhooks', () => {
      it('201 with exactly id, url, events, active, created_at; the secret is never returned', async () => {
        const t = await h.tenant();
        const res = await h.request('POST', '/v1/webhooks', {
          key: t.liveKey,
          body: { url: 'https://example.com/hooks?x=1', events: ['note.created'], secret: SECRET },
        });
        expect(res.status).toBe(201);
        expect(Object.keys(res.body).sort()).toEqual(['active', 'created_at', 'events', 'id', 'url']);
        expect(res.body).toMatchObject({
          url: 'https://example.com/hooks?x=1',
          events: ['note.created'],
          active: true,
        });
        expect(res.body.id).toMatch(WEBHOOK_ID);
        expect(res.body.created_at).toMatch(ISO_UTC);
        expect(res.text).not.toContain(SECRET);
      });

      it('removes duplicate event types, keeping the first occurrence order', async () => {
        const t = await h.tenant();
        const wh = await createWebhook(h, t.liveKey, {
          url: 'https://example.com/a',
          events: ['note.processed', 'note.created', 'note.processed', 'note.created'],
        });
        expect(wh.events).toEqual(['note.processed', 'note.created']);
      });

      it('accepts http:// and loopback targets when WEBHOOKS_ALLOW_PRIVATE_TARGETS=true', async () => {
        const t = await h.tenant();
        const wh = await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}/local` });
        expect(wh.url).toBe(`${currentReceiver().url}/local`);
      });
    });

    describe('GET, PATCH, DELETE', () => {
      it('lists the webhooks of the key’s account and mode as {data: [{id, url, events, active}]}', async () => {
        const t = await h.tenant();
        const a = await createWebhook(h, t.liveKey, {
          url: 'https://example.com/a',
          events: ['note.created'],
        });
        const b = await createWebhook(h, t.liveKey, { url: 'https://example.com/b', secret: SECRET });
        const res = await h.request('GET', '/v1/webhooks', { key: t.liveKey });
        expect(res.status).toBe(200);
        expect(Object.keys(res.body)).toEqual(['data']);
        expect(res.body.data).toEqual([
          { id: a.id, url: a.url, events: ['note.created'], active: true },
          { id: b.id, url: b.url, events: ALL_EVENTS, active: true },
        ]);
        expect(res.text).not.toContain(SECRET);
      });

      it('GET /v1/webhooks/:id returns the webhook', async () => {
        const t = await h.tenant();
        const wh = await createWebhook(h, t.liveKey, { url: 'https://example.com/a', secret: SECRET });
        const res = await h.request('GET', `/v1/webhooks/${wh.id}`, { key: t.liveKey });
        expect(res.status).toBe(200);
        expect(res.body).toEqual(wh);
      });

      it('PATCH changes url, events, active and secret and returns the webhook', async () => {
        const t = await h.tenant();
        const wh = await createWebhook(h, t.liveKey, { url: 'https://example.com/a' });
        const res = await h.request('PATCH', `/v1/webhooks/${wh.id}`, {
          key: t.liveKey,
          body: {
            url: 'https://example.com/b',
            events: ['note.processed', 'note.processed'],
            active: false,
            secret: SECRET,
          },
        });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          ...wh,
          url: 'https://example.com/b',
          events: ['note.processed'],
          active: false,
        });
        expect(res.text).not.toContain(SECRET);
        const again = await h.request('GET', `/v1/webhooks/${wh.id}`, { key: t.liveKey });
        expect(again.body).toEqual(res.body);
      });

      it('DELETE answers {deleted: true}; the webhook is gone from get and list', async () => {
        const t = await h.tenant();
        const wh = await createWebhook(h, t.liveKey, { url: 'https://example.com/a' });
        const res = await h.request('DELETE', `/v1/webhooks/${wh.id}`, { key: t.liveKey });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ deleted: true });
        expect((await h.request('GET', `/v1/webhooks/${wh.id}`, { key: t.liveKey })).status).toBe(404);
        expect((await h.request('GET', '/v1/webhooks', { key: t.liveKey })).body.data).toEqual([]);
      });
    });

    describe('delivery', () => {
      it('POSTs the stored event JSON with the documented headers; both signatures verify independently', async () => {
        const t = await h.tenant();
        const path = pathOf('signed');
        const wh = await createWebhook(h, t.liveKey, {
          url: `${currentReceiver().url}${path}`,
          secret: SECRET,
        });
        const note = await h.request('POST', '/v1/notes', {
          key: t.liveKey,
          body: { title: 'Signed', transcript: 'Alice: Hello.' },
        });
        expect(note.status).toBe(202);
        await deliverDue(h);
        const [req, ...more] = requestsTo(path);
        expect(more).toEqual([]);
        expect(req).toBeDefined();
        expect(req!.method).toBe('POST');
        expect(req!.headers['content-type']).toBe('application/json');
        expect(req!.headers['user-agent']).toBe('Minutes-Webhooks/1.0');
        expect(req!.headers['x-svc-event']).toBe('note.created');
        const body = JSON.parse(req!.body);
        expect(body.id).toMatch(EVENT_ID);
        expect(req!.headers['x-svc-delivery']).toBe(body.id);
        expect(req!.headers['webhook-id']).toBe(body.id);
        expect(Math.abs(Number(req!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
        expect(verifySignatures(req!, SECRET)).toEqual(body);
        // The body is the outbox row byte for byte.
        const stored = await h.deps.db
          .selectFrom('events')
          .select('payload')
          .where('id', '=', body.id)
          .executeTakeFirstOrThrow();
        expect(req!.body).toBe(stored.payload);
        expect(body).toMatchObject({ type: 'note.created', data: { id: note.body.id, title: 'Signed' } });
        expect(body.created_at).toMatch(ISO_UTC);

        const [delivery] = await listDeliveries(h, t.liveKey, wh.id);
        expect(delivery).toMatchObject({
          webhook_id: wh.id,
          event_id: body.id,
          event_type: 'note.created',
          status: 'succeeded',
          attempt_count: 1,
        });
        expect(delivery!.id).toMatch(DELIVERY_ID);
        expect(delivery!.completed_at).toMatch(ISO_UTC);
        expect(delivery!.next_attempt_at).toBeUndefined();
        expect(delivery!.attempts).toHaveLength(1);
        expect(delivery!.attempts[0]).toMatchObject({ attempt: 1, status_code: 200, response_body: 'ok' });
        expect(delivery!.attempts[0]!.error).toBeUndefined();
        expect(delivery!.attempts[0]!.duration_ms).toBeGreaterThanOrEqual(0);
      });

      it('without a secret: no signature headers, but webhook-id and webhook-timestamp', async () => {
        const t = await h.tenant();
        const path = pathOf('unsigned');
        await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
        const event = await emit(h, t, 'recording.ready');
        await deliverDue(h);
        const [req] = requestsTo(path);
        expect(req!.headers['x-svc-signature']).toBeUndefined();
        expect(req!.headers['webhook-signature']).toBeUndefined();
        expect(req!.headers['webhook-id']).toBe(event.id);
        expect(req!.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
      });

      it.each([
        ['spaces', SPACED_SECRET],
        ['non-ASCII characters', UNICODE_SECRET],
      ])('a secret with %s keys both signatures with its UTF-8 bytes', async (_, secret) => {
        const t = await h.tenant();
        const path = pathOf('utf8-secret');
        await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}`, secret });
        const event = await emit(h, t, 'note.created', {
          id: 'note_abc',
          title: 'Café ☕ — naïve 🔑',
          summary: '',
          tags: [],
        });
        await deliverDue(h);
        const [req, ...more] = requestsTo(path);
        expect(more).toEqual([]);
        expect(req!.raw.length).toBeGreaterThan(req!.body.length); // non-ASCII body: bytes ≠ UTF-16 units
        // Recomputed here with node:crypto over the raw bytes received, keyed with the UTF-8 bytes.
        const key = Buffer.from(secret, 'utf8');
        expect(req!.headers['x-svc-signature']).toBe(
          createHmac('sha256', key).update(req!.raw).digest('hex'),
        );
        const signed = Buffer.concat([
          Buffer.from(`${event.id}.${req!.headers['webhook-timestamp']}.`),
          req!.raw,
        ]);
        expect(req!.headers['webhook-signature']).toBe(
          `v1,${createHmac('sha256', key).update(signed).digest('base64')}`,
        );
        // And by the fixture's verifier: node:crypto again plus the standardwebhooks reference library.
        expect(verifySignatures(req!, secret)).toEqual(JSON.parse(req!.body));
        const headers = {
          'webhook-id': req!.headers['webhook-id']!,
          'webhook-timestamp': req!.headers['webhook-timestamp']!,
          'webhook-signature': req!.headers['webhook-signature']!,
        };
        const utf8Key = new TextEncoder().encode(secret);
        expect(new StandardWebhook(utf8Key, { format: 'raw' }).verify(req!.body, headers)).toMatchObject({
          id: event.id,
        });
        const byString = () => new StandardWebhook(secret, { format: 'raw' }).verify(req!.body, headers);
        // The library's raw format reads a string's UTF-16 code units as bytes: right for ASCII only.
        if (/^[\x20-\x7e]+$/.test(secret)) expect(byString()).toMatchObject({ id: event.id });
        else expect(byString).toThrow(/No matching signature/);
      });

      it('secret lengths count code points: 16 and 256 emoji are accepted, and PATCH rotates to one', async () => {
        const t = await h.tenant();
        const path = pathOf('emoji-secret');
        const short = '🔑'.repeat(16); // 32 UTF-16 code units, 64 UTF-8 bytes
        const long = '秘'.repeat(256); // 768 UTF-8 bytes
        const wh = await createWebhook(h, t.liveKey, {
          url: `${currentReceiver().url}${path}`,
          secret: short,
        });
        await emit(h, t, 'note.created');
        await deliverDue(h);
        const patched = await h.request('PATCH', `/v1/webhooks/${wh.id}`, {
          key: t.liveKey,
          body: { secret: long },
        });
        expect(patched.status).toBe(200);
        expect(patched.text).not.toContain('秘');
        await emit(h, t, 'note.processed');
        await deliverDue(h);
        const [first, second] = requestsTo(path);
        verifySignatures(first!, short);
        verifySignatures(second!, long);
      });

      it('a note created with POST /v1/notes arrives as note.created, action_item.created…, note.processed, in order', async () => {
        const t = await h.tenant();
        const path = pathOf('ordered');
        await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}`, secret: SECRET });
        const created = await h.request('POST', '/v1/notes', {
          key: t.liveKey,
          body: { title: 'Planning', transcript: TRANSCRIPT },
        });
        expect(created.status).toBe(202);
        await runDueJobs(h.deps);
        await deliverDue(h);
        const note = await h.request('GET', `/v1/notes/${created.body.id}`, { key: t.liveKey });
        const items = note.body.action_items as { id: string }[];
        expect(items.length).toBeGreaterThan(0);
        const received = requestsTo(path).map(
          (r) => verifySignatures(r, SECRET) as { type: string; data: any },
        );
        expect(received.map((e) => e.type)).toEqual([
          'note.created',
          ...items.map(() => 'action_item.created'),
          'note.processed',
        ]);
        expect(received.slice(1, -1).map((e) => e.data.id)).toEqual(items.map((i) => i.id));
        expect(received.at(-1)!.data).toMatchObject({ id: created.body.id, status: 'ready' });
      });

      it('delivers only the subscribed types, and only events of the same account and mode', async () => {
        const t = await h.tenant();
        const other = await h.tenant();
        const path = pathOf('subscribed');
        await createWebhook(h, t.liveKey, {
          url: `${currentReceiver().url}${path}`,
          events: ['note.processed'],
        });
        await emit(h, t, 'note.created');
        const wanted = await emit(h, t, 'note.processed');
        await emit(h, t, 'action_item.created');
        await emit(h, { accountId: t.accountId, mode: 'test' }, 'note.processed');
        await emit(h, other, 'note.processed');
        await deliverDue(h);
        expect(requestsTo(path).map((r) => r.headers['webhook-id'])).toEqual([wanted.id]);
      });

      it('a webhook created after an event does not receive it', async () => {
        const t = await h.tenant();
        const path = pathOf('after');
        const before = await emit(h, t, 'note.created');
        await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
        const after = await emit(h, t, 'note.created');
        await deliverDue(h);
        const ids = requestsTo(path).map((r) => r.headers['webhook-id']);
        expect(ids).toEqual([after.id]);
        expect(ids).not.toContain(before.id);
      });

      it('every webhook subscribed to an event receives it once, with the same event id', async () => {
        // Events of different notes go out concurrently: arrival order across notes is not guaranteed.
        const t = await h.tenant();
        const p1 = pathOf('fan1');
        const p2 = pathOf('fan2');
        await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${p1}` });
        await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${p2}`, secret: SECRET });
        const events = [];
        for (let i = 0; i < 25; i++) events.push(await emit(h, t, 'note.created'));
        await deliverDue(h);
        await deliverDue(h);
        const expected = events.map((e) => e.id).sort();
        expect(
          requestsTo(p1)
            .map((r) => r.headers['webhook-id'])
            .sort(),
        ).toEqual(expected);
        expect(
          requestsTo(p2)
            .map((r) => r.headers['webhook-id'])
            .sort(),
        ).toEqual(expected);
      });

      it('events of one note keep their order while other notes go out alongside', async () => {
        const t = await h.tenant();
        const path = pathOf('notes');
        await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
        const notes = ['note_a', 'note_b', 'note_c'].map((n) => `${n}${Math.random().toString(36).slice(2)}`);
        const written: Record<string, string[]> = {};
        for (const type of [
          'recording.ready',
          'note.created',
          'action_item.created',
          'action_item.created',
          'note.processed',
        ] as const) {
          for (const note of notes) {
            const e = await emit(h, t, type, sampleData(type, note));
            written[note] = [...(written[note] ?? []), e.id];
          }
        }
        await deliverDue(h);
        const received = requestsTo(path).map((r) => JSON.parse(r.body));
        expect(received).toHaveLength(15);
        for (const note of notes) {
          const ofNote = received.filter((e) => (e.data.note_id ?? e.data.id) === note).map((e) => e.id);
          expect(ofNote).toEqual(written[note]);
        }
      });

      it('a test key’s webhook receives test-mode events only', async () => {
        const t = await h.tenant();
        const path = pathOf('testmode');
        await createWebhook(h, t.testKey, { url: `${currentReceiver().url}${path}` });
        await emit(h, { accountId: t.accountId, mode: 'live' }, 'note.created');
        const testEvent = await emit(h, { accountId: t.accountId, mode: 'test' }, 'note.created');
        await deliverDue(h);
        expect(requestsTo(path).map((r) => r.headers['webhook-id'])).toEqual([testEvent.id]);
      });
    });

    describe('deliveries log and redelivery', () => {
      it('lists deliveries newest first, paged, filterable by status and event_id', async () => {
        const t = await h.tenant();
        const path = pathOf('log');
        const wh = await createWebhook(h, t.liveKey, { url: `${currentReceiver().url}${path}` });
        const events = [];
        for (let i = 0; i < 3; i++) events.push(await emit(h, t, 'note.created'));
        await deliverDue(h);
        const page1 = await h.request('GET', `/v1/webhooks/${wh.id}/deliveries?per_page=2`, {
          key: t.liveKey,
        });
        expect(page1.status).toBe(200);
        expect(page1.body.meta).toEqual({ page: 1, per_page: 2, total: 3 });
        expect(page1.body.data.map((d: { event_id: string }) => d.event_id)).toEqual([
          events[2]!.id,
          events[1]!.id,
        ]);
        const page2 = await h.request('GET', `/v1/webhooks/${wh.id}/deliveries?per_page=2&page=2`, {
          key: t.liveKey,
        });
        expect(page2.body.data.map((d: { event_id: string }) => d.event_id)).toEqual([events[0]!.id]);
        expect(await listDeliveries(h, t.liveKey, wh.id, 'status=failed')).toEqual([]);
        expect((await listDeliveries(h, t.liveKey, wh.id, 'status=succeeded')).length).toBe(3);
        const one = await listDeliveries(h, t.liveKey, wh.id, `event_id=${events[1]!.id}`);
        expect(one.map((d) => d.event_id)).toEqual([events[1]!.id]);
      });

      it('redeliver sends the same event again as a new delivery with the same webhook-id', async () => {
        const t = await h.tenant();
        const path = pathOf('redeliver');
        const wh = await createWebhook(h, t.liveKey, {
          url: `${currentReceiver().url}${path}`,
          secret: SECRET,
        });
        const event = await emit(h, t, 'note.processed');
        await deliverDue(h);
        const [original] = await listDeliveries(h, t.liveKey, wh.id);
        const res = await h.request('POST', `/v1/webhooks/${wh.id}/deliveries/${original!.id}/redeliver`, {
          key: t.liveKey,
        });
        expect(res.status).toBe(202);
        expect(res.body).toMatchObject({
          webhook_id: wh.id,
          event_id: event.id,
          event_type: 'note.processed',
          status: 'pending',
          attempt_count: 0,
          redelivery_of: original!.id,
          attempts: [],
        });
        expect(res.body.id).toMatch(DELIVERY_ID);
        expect(res.body.id).not.toBe(original!.id);
        await deliverDue(h);
        const [first, second] = requestsTo(path);
        expect(second!.headers['webhook-id']).toBe(event.id);
        expect(second!.body).toBe(first!.body);
        verifySignatures(second!, SECRET);
        const log = await listDeliveries(h, t.liveKey, wh.id);
        expect(log.map((d) => [d.id, d.status])).toEqual([
          [res.body.id, 'succeeded'],
          [original!.id, 'succeeded'],
        ]);
      });
    });
  });
}
