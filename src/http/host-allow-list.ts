import { isIP } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
import type { Config } from '../config.ts';

/**
 * The host a request was sent to (`host[:port]`, lower case): the first X-Forwarded-Host (a proxy's; a browser
 * cannot set it), else Host, else the request URL's.
 */
export function requestHost(c: Context): string {
  const host =
    c.req.header('x-forwarded-host')?.split(',')[0]?.trim() ||
    c.req.header('host') ||
    new URL(c.req.url).host;
  return host.toLowerCase();
}

/** The host name of a `host[:port]` (brackets of an IPv6 literal kept off, a trailing dot dropped). */
function hostnameOf(host: string): string | null {
  if (!URL.canParse(`http://${host}`)) return null;
  return new URL(`http://${host}`).hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/**
 * Whether a host name may serve cookie-authenticated pages: PUBLIC_URL's, `localhost` and its subdomains, and
 * any IP literal (a page at an IP address has that address as its origin, so it cannot be rebound). Any other
 * name is what DNS rebinding uses: a hostile name that resolves to this server.
 */
export function hostAllowed(config: Pick<Config, 'publicUrl'>, host: string): boolean {
  const name = hostnameOf(host);
  if (!name) return false;
  if (name === 'localhost' || name.endsWith('.localhost') || isIP(name) !== 0) return true;
  return config.publicUrl !== undefined && name === new URL(config.publicUrl).hostname.toLowerCase();
}

/**
 * Refuses (421 Misdirected Request) any request whose host is not allowed (hostAllowed): mounted on the pages
 * that act on a browser's cookies (dashboard, OAuth), so a rebound name cannot reach them with the victim's
 * browser. Set PUBLIC_URL to the name people use.
 */
export function hostAllowList(config: Pick<Config, 'publicUrl'>): MiddlewareHandler {
  return async (c, next) => {
    const host = requestHost(c);
    if (hostAllowed(config, host)) return next();
    return c.text(
      `This server does not answer to the name '${host.slice(0, 200)}'. Set PUBLIC_URL to the address people use.`,
      421,
      { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' },
    );
  };
}
