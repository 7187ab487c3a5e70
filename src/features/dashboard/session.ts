import { createHash } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Deps } from '../../deps.ts';
import { SCOPES } from '../api-keys/scopes.ts';
import { newToken, sameString } from '../users/tokens.ts';
import { usersRepo } from '../users/users.repo.ts';
import { resolveSession, SESSION_MAX_MS } from '../users/users.service.ts';
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
  const existing = getCookie(c, PRE_SESSION_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = newToken();
  setCookie(c, PRE_SESSION_COOKIE, token, cookieOptions(c));
  return token;
}

export function checkPreSessionCsrf(c: Context, submitted: string | undefined): boolean {
  const cookie = getCookie(c, PRE_SESSION_COOKIE);
  return !!cookie && !!submitted && sameString(cookie, submitted);
}

/**
 * A state-changing request from another site is refused before its body is read: browsers send `Origin` with
 * every POST; when present it must be this server's. (The CSRF token is checked as well, once the form is read.)
 */
export function sameOrigin(c: Context): boolean {
  const origin = c.req.header('origin');
  if (origin === undefined) return true;
  const host = c.req.header('x-forwarded-host')?.split(',')[0]?.trim() || c.req.header('host');
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
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
 * `_csrf` or header `X-CSRF-Token`; a multipart upload checks its field itself, see `csrfFieldOk`).
 * Without a session a GET is sent to the sign-in page, anything else gets a 401 page.
 */
export function requireSession(deps: Deps): MiddlewareHandler<DashEnv> {
  return async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    const session = await resolveSession(deps, token);
    const user = session ? await usersRepo.findById(deps.db, session.user_id) : undefined;
    if (!session || !token || !user) {
      if (token) clearSessionCookie(c);
      if (c.req.method === 'GET' || c.req.method === 'HEAD') {
        const url = new URL(c.req.url);
        const next = url.pathname + url.search;
        return c.redirect(next === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(next)}`, 303);
      }
      return c.text('Your session has ended. Sign in again.', 401);
    }
    const csrf = csrfOf(token);
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      if (!sameOrigin(c)) return c.text('Cross-site request refused.', 403);
      const multipart = /^multipart\/form-data/i.test(c.req.header('content-type') ?? '');
      if (!multipart) {
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

/** The form's value of one field (url-encoded bodies; Hono caches the parsed body for the handler). */
async function formField(c: Context, name: string): Promise<string | undefined> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded/i.test(type)) return undefined;
  const value = (await c.req.parseBody({ all: true }))[name];
  return typeof value === 'string' ? value : undefined;
}

export function csrfFieldOk(c: Context<DashEnv>, fields: readonly [string, string][]): boolean {
  const submitted = c.req.header('x-csrf-token') ?? fields.find(([k]) => k === '_csrf')?.[1];
  return !!submitted && sameString(submitted, c.get('csrf'));
}

export { takeFlash };
