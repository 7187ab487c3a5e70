// Three ways a receiver verifies a Minutes webhook delivery, as docs/clients.md shows them. Each takes the raw
// body exactly as received (verify before parsing JSON), the request headers (lower-case names) and the webhook's
// secret as given to POST /v1/webhooks, and returns the parsed event or throws. test/clients runs all three
// against real deliveries.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';

export interface MinutesEvent {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

type Headers = Record<string, string | undefined>;

/** The `standardwebhooks` package: the secret's raw UTF-8 bytes are the key. */
export function verifyWithStandardWebhooks(rawBody: string, headers: Headers, secret: string): MinutesEvent {
  const wh = new StandardWebhook(new TextEncoder().encode(secret) as never, { format: 'raw' });
  return wh.verify(rawBody, {
    'webhook-id': headers['webhook-id'] ?? '',
    'webhook-timestamp': headers['webhook-timestamp'] ?? '',
    'webhook-signature': headers['webhook-signature'] ?? '',
  }) as MinutesEvent;
}

/** The `svix` package (1.x): it expects `whsec_` + base64 of the key bytes, so pass the secret that way. */
export function verifyWithSvix(rawBody: string, headers: Headers, secret: string): MinutesEvent {
  const wh = new SvixWebhook(`whsec_${Buffer.from(secret, 'utf8').toString('base64')}`);
  return wh.verify(rawBody, {
    'webhook-id': headers['webhook-id'] ?? '',
    'webhook-timestamp': headers['webhook-timestamp'] ?? '',
    'webhook-signature': headers['webhook-signature'] ?? '',
  }) as MinutesEvent;
}

/**
 * Plain HMAC with node:crypto: `X-Svc-Signature` is the hex HMAC-SHA256 of the raw body, compared in constant
 * time. (It has no timestamp: check `webhook-timestamp` yourself, or use one of the libraries above.)
 */
export function verifyWithHmac(rawBody: string, headers: Headers, secret: string): MinutesEvent {
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const given = Buffer.from(headers['x-svc-signature'] ?? '', 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new Error('X-Svc-Signature does not match');
  }
  return JSON.parse(rawBody) as MinutesEvent;
}
