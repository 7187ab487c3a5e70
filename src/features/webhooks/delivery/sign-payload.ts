import { createHmac } from 'node:crypto';

export const USER_AGENT = 'Minutes-Webhooks/1.0';

/**
 * The headers of one delivery attempt. `X-Svc-Delivery` and `webhook-id` are the event id, stable across
 * retries and redeliveries, so receivers can de-duplicate. With a secret: `X-Svc-Signature` (hex HMAC-SHA256
 * of the raw body, spec §6) and the Standard Webhooks `webhook-signature` (`v1,` + base64 HMAC-SHA256 of
 * `id.timestamp.body`), which with `webhook-timestamp` gives receivers replay protection. Both are keyed with
 * the secret's UTF-8 bytes (API.md), also when it holds spaces or non-ASCII characters.
 */
export function buildDeliveryHeaders(options: {
  eventId: string;
  eventType: string;
  body: Buffer;
  secret: string | null;
  /**
   * Secrets that also sign during a rotation's overlap: each adds a `v1,` signature to `webhook-signature`
   * (space-separated, the current secret's first); `X-Svc-Signature` carries the current secret's only.
   */
  previousSecrets?: readonly string[];
  /** Unix seconds of this attempt. */
  timestamp: number;
}): Record<string, string> {
  const { eventId, eventType, body, secret, timestamp } = options;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-svc-event': eventType,
    'x-svc-delivery': eventId,
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
  };
  if (secret !== null) {
    const key = Buffer.from(secret, 'utf8');
    headers['x-svc-signature'] = createHmac('sha256', key).update(body).digest('hex');
    const standard = (k: Buffer) =>
      `v1,${createHmac('sha256', k).update(`${eventId}.${timestamp}.`).update(body).digest('base64')}`;
    headers['webhook-signature'] = [
      key,
      ...(options.previousSecrets ?? []).map((p) => Buffer.from(p, 'utf8')),
    ]
      .map(standard)
      .join(' ');
  }
  return headers;
}

/** The rotated-out secret while its overlap lasts (it signs alongside the current one), else null. */
export function overlappingSecret(
  webhook: {
    secret: string | null;
    previous_secret?: string | null;
    previous_secret_expires_at?: string | null;
  },
  now: string,
): string | null {
  return webhook.secret !== null &&
    webhook.previous_secret &&
    (webhook.previous_secret_expires_at ?? '') > now
    ? webhook.previous_secret
    : null;
}
