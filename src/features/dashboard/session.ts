import { createHash } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Deps } from '../../deps.ts';
import { requestHost } from '../../http/host-allow-list.ts';
import { SCOPES } from '../api-keys/scopes.ts';
import { newToken, sameString } from '../users/tokens.ts';
import { resolveSessionUser, SESSION_MAX_MS } from '../users/users.service.ts';
import type { DashEnv, Flash } from './dashboard.env.ts';

export const SESSION_COOKIE = 'minutes_session';
/** Double-submit token of the forms shown before sign-in (sign-in, set-up). */
const PRE_SESSION_COOKIE = 'minutes_csrf';
const FLASH_COOKIE = 'minutes_flash';

/** Behind HTTPS (directly or through a proxy that says so), cookies get `Secure`. */
export function isHttps(c: Context): boolean {
  return (
    new URL(c.req.url).protocol === 'https:' ||
    c.req.header('x-forwarded-proto')?.split(',')[0]?.trim() === 'https'
  );
}

const cookieOptions = (c: Context, maxAgeSeconds?: number) => ({
  httpOnly: true,
  sameSite: 'Lax' as const,
  secure: isHttps(c),
  path: '/',
  ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
});

export function setSessionCookie(c: Context, token: string): void {
  setCookie(c, SESSION_COOKIE, token, cookieOptions(c, Math.floor(SESSION_MAX_MS / 1000)));
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: isHttps(c) });
}

/** The CSRF token of a session: derived from its secret cookie token, so it needs no storage. */
export function csrfOf(sessionToken: string): string {
  return createHash('sha256').update(`minutes-csrf\u0000${sessionToken}`).digest('base64url');
}

/** The pre-session CSRF token (set as a cookie if absent); forms before sign-in carry it. */
export function preSessionCsrf(c: Context): string {
  const existing = getCookie(c, preSessionCookie(c));
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = newToken();
  setCookie(c, preSessionCookie(c), token, cookieOptions(c));
  return token;
}

/**
 * Behind HTTPS the double-submit cookie has the `__Host-` prefix: browsers accept it only from this exact host
 * (Secure, no Domain), so a sibling subdomain cannot plant a matching pair.
 */
function preSessionCookie(c: Context): string {
  return isHttps(c) ? `__Host-${PRE_SESSION_COOKIE}` : PRE_SESSION_COOKIE;
}

export function checkPreSessionCsrf(c: Context, submitted: string | undefined): boolean {
  const cookie = getCookie(c, preSessionCookie(c));
  return !!cookie && !!submitted && sameString(cookie, submitted);
}

/** The `host[:port]` of an absolute http(s) URL, lower case; null for anything else (including `null`). */
function hostOfUrl(value: string): string | null {
  if (!URL.canParse(value)) return null;
  const url = new URL(value);
  return /^https?:$/.test(url.protocol) ? url.host.toLowerCase() : null;
}

/**
 * A state-changing request from another site is refused before its body is read: it must carry an Origin, or
 * failing that a Referer, of this server's host. Browsers send Origin with every POST (a Referer when a policy
 * strips it); a request with neither is refused too, so only clients that say where they come from pass.
 * (The CSRF token is checked as well.)
 */
export function sameOrigin(c: Context): boolean {
  const source = c.req.header('origin') ?? c.req.header('referer');
  return source !== undefined && hostOfUrl(source) === requestHost(c);
}

export function setFlash(c: Context, flash: Flash): void {
  setCookie(c, FLASH_COOKIE, Buffer.from(JSON.stringify(flash)).toString('base64url'), cookieOptions(c, 120));
}

function takeFlash(c: Context): Flash | undefined {
  const value = getCookie(c, FLASH_COOKIE);
  if (!value) return undefined;
  deleteCookie(c, FLASH_COOKIE, { path: '/', secure: isHttps(c) });
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Flash;
    return (parsed.kind === 'ok' || parsed.kind === 'error') && typeof parsed.text === 'string'
      ? { kind: parsed.kind, text: parsed.text.slice(0, 500) }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Pages behind sign-in: resolves the cookie's session (idle and absolute expiry are checked in the database),
 * sets the actor for the services, and on POST requires the same origin and the session's CSRF token (form field
 * `_csrf`, url-encoded or multipart, or header `X-CSRF-Token`; Upload checks its streamed field, `csrfFieldOk`).
 * Without a session a GET is sent to the sign-in page, anything else gets a 401 page.
 */
export function requireSession(deps: Deps): MiddlewareHandler<DashEnv> {
  return async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    const signedIn = await resolveSessionUser(deps, token);
    if (!signedIn || !token) {
      if (token) clearSessionCookie(c);
      if (c.req.method === 'GET' || c.req.method === 'HEAD') {
        const url = new URL(c.req.url);
        const next = url.pathname + url.search;
        return c.redirect(next === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(next)}`, 303);
      }
      return c.text('Your session has ended. Sign in again.', 401);
    }
    const { session, user } = signedIn;
    const csrf = csrfOf(token);
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      if (!sameOrigin(c)) return c.text('Cross-site request refused.', 403);
      // Upload streams its multipart body to disk and checks the field there (csrfFieldOk); every other body of
      // any content type must carry the token in the header or a form field.
      if (c.req.path !== '/upload') {
        const header = c.req.header('x-csrf-token');
        const submitted = header ?? (await formField(c, '_csrf'));
        if (!submitted || !sameString(submitted, csrf)) {
          return c.text(
            'This form has expired (missing or wrong CSRF token). Reload the page and try again.',
            403,
          );
        }
      }
    }
    c.set('session', session);
    c.set('token', token);
    c.set('email', user.email);
    c.set('csrf', csrf);
    c.set('actor', {
      accountId: session.account_id,
      mode: session.mode,
      scopes: new Set(SCOPES),
      keyId: `session:${session.user_id}`,
    });
    const flash = takeFlash(c);
    if (flash) c.set('flash', flash);
    return next();
  };
}

/**
 * The form's value of one field, url-encoded or multipart (bodies here are at most FORM_MAX_BYTES; Hono caches
 * the parsed body for the handler); undefined for any other content type or a body that does not parse.
 */
async function formField(c: Context, name: string): Promise<string | undefined> {
  const type = c.req.header('content-type') ?? '';
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(type)) return undefined;
  try {
    const value = (await c.req.parseBody({ all: true }))[name];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

export function csrfFieldOk(c: Context<DashEnv>, fields: readonly [string, string][]): boolean {
  const submitted = c.req.header('x-csrf-token') ?? fields.find(([k]) => k === '_csrf')?.[1];
  return !!submitted && sameString(submitted, c.get('csrf'));
}

export { takeFlash };
