import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { expect } from 'vitest';
import type { Mode } from '../../src/db/schema.ts';
import { type EventType, recordEvent } from '../../src/features/events/events.ts';
import { runDueDeliveries } from '../../src/features/webhooks/webhook-worker.ts';
import { newId } from '../../src/lib/ids.ts';
import type { Harness } from '../helpers/harness.ts';
import type { ReceivedRequest } from './receiver.ts';

export interface WebhookView {
  id: string;
  url: string;
  events: EventType[];
  active: boolean;
  created_at: string;
}

export interface DeliveryAttemptView {
  attempt: number;
  started_at: string;
  completed_at?: string;
  duration_ms?: number;
  status_code?: number;
  error?: string;
  response_body?: string;
}

export interface DeliveryView {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: EventType;
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  attempt_count: number;
  next_attempt_at?: string;
  redelivery_of?: string;
  created_at: string;
  updated_at: string;
  completed_at?: string;
  attempts: DeliveryAttemptView[];
}

export const SECRET = 'whsec_test_0123456789abcdefXYZ';
export const WEBHOOK_ID = /^wh_[0-9A-Za-z]{24}$/;
export const DELIVERY_ID = /^dlv_[0-9A-Za-z]{24}$/;
export const EVENT_ID = /^evt_[0-9A-Za-z]{24}$/;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const ALL_EVENTS: EventType[] = [
  'recording.ready',
  'note.created',
  'action_item.created',
  'note.processed',
];

/** POST /v1/webhooks; asserts 201. */
export async function createWebhook(
  h: Harness,
  key: string,
  body: { url: string; events?: string[]; secret?: string },
): Promise<WebhookView> {
  const res = await h.request<WebhookView>('POST', '/v1/webhooks', {
    key,
    body: { events: ALL_EVENTS, ...body },
  });
  expect(res.status, res.text.slice(0, 500)).toBe(201);
  return res.body;
}

/** GET /v1/webhooks/:id/deliveries (all on one page); asserts 200. */
export async function listDeliveries(
  h: Harness,
  key: string,
  webhookId: string,
  query = 'per_page=100',
): Promise<DeliveryView[]> {
  const res = await h.request('GET', `/v1/webhooks/${webhookId}/deliveries?${query}`, { key });
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  return res.body.data;
}

/** Writes an event to the outbox as the pipeline does (own transaction). */
export function emit(h: Harness, space: { accountId: string; mode?: Mode }, type: EventType, data?: unknown) {
  return recordEvent(
    h.deps.db,
    { accountId: space.accountId, mode: space.mode ?? 'live' },
    type,
    data ?? sampleData(type),
  );
}

/** A plausible `data` of each event type, linked to a note id. */
export function sampleData(type: EventType, noteId = newId('note')): Record<string, unknown> {
  switch (type) {
    case 'note.created':
    case 'note.processed':
      return { id: noteId, title: 'Weekly sync', summary: '', tags: [] };
    case 'note.failed':
      return { id: noteId, title: 'Weekly sync', summary: '', tags: [], failure_reason: 'No transcriber.' };
    case 'action_item.created':
      return { id: newId('actionItem'), note_id: noteId, text: 'Send the report', status: 'pending' };
    case 'recording.ready':
      return { id: newId('recording'), note_id: noteId, content_type: 'audio/wav', size_bytes: 1 };
  }
}

/** Runs the delivery worker once over everything due (fan-out, claim, send, record). */
export function deliverDue(h: Harness): Promise<number> {
  return runDueDeliveries(h.deps);
}

/** Whether `a` and `b` are equal, compared in constant time (as a receiver should). */
function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Verifies both signatures of a received request independently of the service, keyed with the secret's UTF-8
 * bytes (API.md): node:crypto recomputes `X-Svc-Signature` (hex HMAC-SHA256 of the raw body) and
 * `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`) over the raw bytes received, and the
 * Standard Webhooks reference library verifies the latter too. Its raw format takes a string's UTF-16 code
 * units as bytes, which are the UTF-8 bytes only for ASCII; other secrets are given to it as their UTF-8
 * bytes. Returns the parsed body.
 */
export function verifySignatures(request: ReceivedRequest, secret: string): unknown {
  const key = new TextEncoder().encode(secret);
  const id = request.headers['webhook-id']!;
  const timestamp = request.headers['webhook-timestamp']!;
  const given = request.headers['x-svc-signature'] ?? '';
  expect(given).toMatch(/^[0-9a-f]{64}$/);
  expect(sameText(given, createHmac('sha256', key).update(request.raw).digest('hex'))).toBe(true);
  const standard = request.headers['webhook-signature'] ?? '';
  expect(standard).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  const expected = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), request.raw]))
    .digest('base64');
  expect(sameText(standard, `v1,${expected}`)).toBe(true);
  const ascii = key.length === secret.length; // one UTF-8 byte per UTF-16 unit: ASCII
  return new StandardWebhook(ascii ? secret : key, { format: 'raw' }).verify(request.body, {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': standard,
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(25);
  }
}
