import type { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { setupInvalidPage, setupPage, signInPage } from '../../../web/pages/auth.pages.ts';
import type { Deps } from '../../deps.ts';
import { clientAddress } from '../../http/client-address.ts';
import { AppError } from '../../lib/errors.ts';
import { ensureSeeded } from '../test-mode/seed.service.ts';
import {
  completeSetup,
  endSession,
  findSetupLinkUser,
  resolveSession,
  setSessionMode,
  signIn,
  startSession,
} from '../users/users.service.ts';
import type { Assets } from './assets.ts';
import type { DashEnv } from './dashboard.env.ts';
import { field, localPath, render } from './respond.ts';
import {
  checkPreSessionCsrf,
  clearSessionCookie,
  preSessionCsrf,
  requireSession,
  SESSION_COOKIE,
  sameOrigin,
  setSessionCookie,
} from './session.ts';

/** Set-up link, sign-in, sign-out and the Test mode switch. */
export function authRoutes(app: Hono<DashEnv>, deps: Deps, assets: Assets): void {
  const v = assets.version;

  app.get('/sign-in', async (c) => {
    if (await resolveSession(deps, getCookie(c, SESSION_COOKIE))) return c.redirect('/', 303);
    const notice =
      c.req.query('setup') === 'done'
        ? 'Your password is set. Sign in with it.'
        : c.req.query('signed_out') === '1'
          ? 'You are signed out.'
          : undefined;
    const next = c.req.query('next');
    return render(
      c,
      signInPage(v, {
        csrf: preSessionCsrf(c),
        ...(next ? { next: localPath(next, '/') } : {}),
        ...(notice ? { notice } : {}),
      }),
    );
  });

  app.post('/sign-in', async (c) => {
    if (!sameOrigin(c)) return c.text('Cross-site request refused.', 403);
    const form = await c.req.parseBody({ all: true });
    const csrf = preSessionCsrf(c);
    if (!checkPreSessionCsrf(c, field(form, '_csrf'))) {
      return render(c, signInPage(v, { csrf, error: 'This form has expired. Try again.' }), 403);
    }
    const email = field(form, 'email');
    const next = localPath(field(form, 'next'), '/');
    let result: Awaited<ReturnType<typeof signIn>>;
    try {
      result = await signIn(deps, {
        email,
        password: field(form, 'password'),
        clientAddress: clientAddress(c, deps.config.trustProxy),
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'unavailable') throw err;
      const res = render(c, signInPage(v, { csrf, email, next, error: err.message }), 503);
      res.headers.set('Retry-After', '5');
      return res;
    }
    if (!result.ok) {
      const error =
        result.reason === 'locked'
          ? `Too many failed sign-ins for this email. Try again in ${Math.ceil(result.retryAfterSeconds / 60)} minutes.`
          : 'The email or password is not correct.';
      const res = render(
        c,
        signInPage(v, { csrf, email, next, error }),
        result.reason === 'locked' ? 429 : 401,
      );
      if (result.reason === 'locked') res.headers.set('Retry-After', String(result.retryAfterSeconds));
      return res;
    }
    setSessionCookie(c, await startSession(deps, result.user));
    return c.redirect(next, 303);
  });

  app.get('/setup', async (c) => {
    const token = c.req.query('token') ?? '';
    const user = await findSetupLinkUser(deps, token);
    if (!user) return render(c, setupInvalidPage(v), 404);
    return render(c, setupPage(v, { csrf: preSessionCsrf(c), token, email: user.email }));
  });

  app.post('/setup', async (c) => {
    if (!sameOrigin(c)) return c.text('Cross-site request refused.', 403);
    const form = await c.req.parseBody({ all: true });
    const token = field(form, 'token');
    const user = await findSetupLinkUser(deps, token);
    if (!user) return render(c, setupInvalidPage(v), 404);
    const csrf = preSessionCsrf(c);
    const again = (error: string, status: number) =>
      render(c, setupPage(v, { csrf, token, email: user.email, error }), status);
    if (!checkPreSessionCsrf(c, field(form, '_csrf'))) return again('This form has expired. Try again.', 403);
    const password = field(form, 'password');
    if (password !== field(form, 'confirm')) return again('The two passwords are not the same.', 400);
    try {
      await completeSetup(deps, { token, password });
    } catch (err) {
      if (err instanceof AppError) return again(err.message, 400);
      throw err;
    }
    clearSessionCookie(c);
    return c.redirect('/sign-in?setup=done', 303);
  });

  app.post('/sign-out', requireSession(deps), async (c) => {
    await endSession(deps, c.get('token'));
    clearSessionCookie(c);
    return c.redirect('/sign-in?signed_out=1', 303);
  });

  app.post('/mode', requireSession(deps), async (c) => {
    const form = await c.req.parseBody({ all: true });
    const mode = field(form, 'mode') === 'test' ? 'test' : 'live';
    if (mode === 'test') await ensureSeeded(deps, c.get('session').account_id);
    await setSessionMode(deps, c.get('token'), mode);
    // A note or webhook of one data space does not exist in the other: go back to the list instead.
    const referer = c.req.header('referer');
    let back = '/';
    if (referer && URL.canParse(referer)) {
      const path = new URL(referer).pathname;
      if (/^\/(upload|action-items|settings\/(keys|webhooks|mcp))$/.test(path)) back = path;
    }
    return c.redirect(back, 303);
  });
}
