import type { Context } from 'hono';

/**
 * The address a request came from: the socket's peer, or behind a trusted proxy (TRUST_PROXY) the last
 * X-Forwarded-For entry, the one that proxy added (earlier entries are whatever the client claimed).
 * `unknown` when neither is available (an in-process request).
 */
export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
    if (forwarded) return forwarded.slice(0, 64);
  }
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'unknown';
}
