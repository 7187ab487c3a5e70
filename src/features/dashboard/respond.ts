import type { Context } from 'hono';
import { type Html, html } from '../../../web/html.ts';
import type { Shell } from '../../../web/layout.ts';
import { AppError, ERROR_CODES } from '../../lib/errors.ts';
import type { DashEnv } from './dashboard.env.ts';
import { setFlash } from './session.ts';

/** Headers of every dashboard page: no caching, no framing, only our own scripts and styles. */
export const PAGE_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; " +
    "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

export function render(c: Context, markup: Html, status = 200): Response {
  return c.html(markup.value, status as 200, PAGE_HEADERS);
}

export function shellOf(c: Context<DashEnv>, assetVersion: string): Shell {
  const flash = c.get('flash');
  return {
    csrf: c.get('csrf'),
    mode: c.get('session').mode,
    email: c.get('email'),
    assetVersion,
    ...(flash ? { flash } : {}),
  };
}

/** A path on this server without whitespace or control characters (a Location header cannot carry them). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const LOCAL_PATH = /^\/(?![/\\])[^\s\u0000-\u001f\u007f]*$/;

/** A local path to go back to after a form (never another site: `//host` and `/\host` are refused). */
export function localPath(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.length < 2000 && LOCAL_PATH.test(value) ? value : fallback;
}

/**
 * Runs a form's action: on success redirects (303) with an optional confirmation; an AppError (bad input, not
 * found) is shown on the page it came from, as the API would have answered it.
 */
export async function act(
  c: Context<DashEnv>,
  back: string,
  run: () => Promise<{ to?: string; ok?: string } | undefined>,
): Promise<Response> {
  try {
    const done = (await run()) ?? {};
    if (done.ok) setFlash(c, { kind: 'ok', text: done.ok });
    return c.redirect(done.to ?? back, 303);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    setFlash(c, { kind: 'error', text: err.message });
    return c.redirect(back, 303);
  }
}

/** Carries this request's confirmation or error over to the page it redirects to (e.g. a not-found id). */
export function keepFlash(c: Context<DashEnv>): void {
  const flash = c.get('flash');
  if (flash) setFlash(c, flash);
}

export function statusOf(err: AppError): number {
  return ERROR_CODES[err.code].status;
}

/** The string value of a form field ('' when absent). */
export function field(form: Record<string, unknown>, name: string): string {
  const v = form[name];
  if (Array.isArray(v)) return typeof v[v.length - 1] === 'string' ? (v[v.length - 1] as string) : '';
  return typeof v === 'string' ? v : '';
}

/** Every string value of a repeated field (checkbox groups). */
export function fields(form: Record<string, unknown>, name: string): string[] {
  const v = form[name] ?? form[`${name}[]`];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return typeof v === 'string' ? [v] : [];
}

/**
 * The dashboard's answer to an error a page did not handle: an AppError (bad input, not found) is a page with its
 * message and status; anything else is logged and a 500 page without details.
 */
export function errorPage(err: Error, c: Context<DashEnv>): Response {
  const known = err instanceof AppError;
  if (!known) c.get('log').error({ err }, 'dashboard page failed');
  const status = known ? statusOf(err) : 500;
  const message = known ? err.message : 'Something went wrong on our side. Try again in a moment.';
  return render(
    c,
    html`<!doctype html><title>Error</title><p>${message}</p><p><a href="/">Notes</a></p>`,
    status,
  );
}
