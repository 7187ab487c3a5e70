import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS_PER_CLIENT as MAX_SIGN_IN_FAILURES } from '../../src/features/users/sign-in-limits.ts';
import { createSetupLink } from '../../src/features/users/users.service.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { csrfIn, DashboardClient } from './dashboard-client.ts';

const PASSWORD = 'correct horse battery';

describe.each(DIALECTS)('dashboard sign-in and sessions (%s)', (dialect) => {
  const h = useHarness(dialect);

  /** A tenant whose person has set a password through a set-up link, and a signed-in client. */
  async function signedIn() {
    const t = await h.tenant();
    const client = new DashboardClient(h.app);
    const { token } = await createSetupLink(h.deps, t.accountId);
    const setup = await client.get(`/setup?token=${token}`);
    expect(setup.status).toBe(200);
    expect(setup.text).toContain(t.email);
    const done = await client.request('POST', '/setup', {
      form: { _csrf: csrfIn(setup.text), token, password: PASSWORD, confirm: PASSWORD },
    });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/sign-in?setup=done');
    const signIn = await client.submit('/sign-in', '/sign-in', {
      email: t.email.toUpperCase(),
      password: PASSWORD,
    });
    expect(signIn.status).toBe(303);
    expect(signIn.location).toBe('/');
    return { t, client, token };
  }

  it('set-up link → password → sign in → the notes page; the link works only once', async () => {
    const { client, token, t } = await signedIn();
    const cookie = client.cookies.get('minutes_session')!;
    const notes = await client.get('/');
    expect(notes.status).toBe(200);
    expect(notes.text).toContain('<h1>Notes</h1>');
    expect(notes.text).toContain('Search notes');
    expect(notes.text).not.toContain(t.liveKey);
    expect(notes.headers.get('cache-control')).toBe('no-store');
    expect(notes.headers.get('content-security-policy')).toContain("script-src 'self'");
    // Only the hash of the cookie's token is stored.
    const rows = await h.db.db.selectFrom('sessions').select('token_hash').execute();
    expect(rows.map((r) => r.token_hash)).not.toContain(cookie);
    expect((await client.get(`/setup?token=${token}`)).status).toBe(404);
  });

  it('the session cookie is HttpOnly and SameSite=Lax, and Secure behind HTTPS', async () => {
    const t = await h.tenant();
    const { token } = await createSetupLink(h.deps, t.accountId);
    const client = new DashboardClient(h.app);
    const setup = await client.get(`/setup?token=${token}`);
    await client.request('POST', '/setup', {
      form: { _csrf: csrfIn(setup.text), token, password: PASSWORD, confirm: PASSWORD },
    });
    const page = await client.request('GET', '/sign-in', { headers: { 'x-forwarded-proto': 'https' } });
    // Behind HTTPS the pre-session CSRF cookie is host-only (`__Host-`), so a subdomain cannot plant a pair.
    const csrfCookie = page.headers.getSetCookie().find((c) => c.startsWith('__Host-minutes_csrf='))!;
    expect(csrfCookie).toMatch(/Secure/i);
    const res = await h.app.request('/sign-in', {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: csrfCookie.split(';')[0]!,
        origin: 'https://localhost',
        'x-forwarded-proto': 'https',
      },
      body: new URLSearchParams({ _csrf: csrfIn(page.text), email: t.email, password: PASSWORD }).toString(),
    });
    expect(res.status).toBe(303);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('minutes_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Secure/i);
  });

  it('without a session pages redirect to sign-in and posts are refused; the API is unchanged', async () => {
    const client = new DashboardClient(h.app);
    const res = await client.get('/action-items');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/sign-in?next=%2Faction-items');
    expect((await client.get('/')).location).toBe('/sign-in');
    expect((await client.request('POST', '/notes/note_x/delete', { form: {} })).status).toBe(401);
    // /v1 knows only bearer keys: a dashboard session does not open it.
    const { client: signed } = await signedIn();
    const api = await signed.get('/v1/notes');
    expect(api.status).toBe(401);
    expect(JSON.parse(api.text).error.code).toBe('api_key_missing');
  });

  it('every state-changing request needs the CSRF token and the same origin', async () => {
    const { client } = await signedIn();
    const page = await client.get('/');
    const csrf = csrfIn(page.text);
    const noToken = await client.request('POST', '/mode', { form: { mode: 'test' } });
    expect(noToken.status).toBe(403);
    const wrong = await client.request('POST', '/mode', {
      form: { mode: 'test', _csrf: `${csrf.slice(1)}x` },
    });
    expect(wrong.status).toBe(403);
    const crossSite = await client.request('POST', '/mode', {
      form: { mode: 'test', _csrf: csrf },
      headers: { origin: 'https://evil.example', host: 'localhost' },
    });
    expect(crossSite.status).toBe(403);
    const ok = await client.request('POST', '/mode', { form: { mode: 'test', _csrf: csrf } });
    expect(ok.status).toBe(303);
    const test = await client.get('/');
    expect(test.text).toContain('Test mode</strong>');
  });

  it('an idle session and one past its absolute expiry end; sign-out ends the session', async () => {
    const { client, t } = await signedIn();
    const userOf = async (email: string) =>
      (await h.db.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow())
        .id;
    await h.db.db
      .updateTable('sessions')
      .set({ last_seen_at: new Date(Date.now() - 25 * 3600_000).toISOString() })
      .where('user_id', '=', await userOf(t.email))
      .execute();
    const idle = await client.get('/');
    expect(idle.status).toBe(303);

    const second = await signedIn();
    await h.db.db
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('user_id', '=', await userOf(second.t.email))
      .execute();
    expect((await second.client.get('/')).location).toBe('/sign-in');

    const third = await signedIn();
    const cookie = third.client.cookies.get('minutes_session')!;
    const out = await third.client.submit('/', '/sign-out', {});
    expect(out.location).toBe('/sign-in?signed_out=1');
    const stale = await h.app.request('/', {
      headers: { cookie: `minutes_session=${cookie}` },
      redirect: 'manual',
    });
    expect(stale.status).toBe(303);
  });

  it(`locks an email after ${MAX_SIGN_IN_FAILURES} failed sign-ins, even for the right password`, async () => {
    const { t } = await signedIn();
    const client = new DashboardClient(h.app);
    for (let i = 0; i < MAX_SIGN_IN_FAILURES; i++) {
      const res = await client.submit('/sign-in', '/sign-in', {
        email: t.email,
        password: 'wrong password!',
      });
      expect(res.status).toBe(401);
      expect(res.text).toContain('The email or password is not correct.');
    }
    const locked = await client.submit('/sign-in', '/sign-in', { email: t.email, password: PASSWORD });
    expect(locked.status).toBe(429);
    expect(locked.text).toContain('Too many failed sign-ins');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a short password and a mismatch are refused; an unknown token is a 404 page', async () => {
    const t = await h.tenant();
    const { token } = await createSetupLink(h.deps, t.accountId);
    const client = new DashboardClient(h.app);
    const page = await client.get(`/setup?token=${token}`);
    const short = await client.request('POST', '/setup', {
      form: { _csrf: csrfIn(page.text), token, password: 'short', confirm: 'short' },
    });
    expect(short.status).toBe(400);
    expect(short.text).toContain('10–256 characters');
    const mismatch = await client.request('POST', '/setup', {
      form: { _csrf: csrfIn(page.text), token, password: PASSWORD, confirm: `${PASSWORD}!` },
    });
    expect(mismatch.text).toContain('not the same');
    expect((await client.get('/setup?token=nope')).status).toBe(404);
  });

  it('a form post larger than 256 KB is refused before it is read, signed in or not', async () => {
    const client = new DashboardClient(h.app);
    const big = await client.request('POST', '/sign-in', { form: { email: 'x'.repeat(300 * 1024) } });
    expect(big.status).toBe(413);
  });

  it('the API keeps its routes: DELETE / is still a JSON 404 with a key, 401 without', async () => {
    const t = await h.tenant();
    const res = await h.request('DELETE', '/', { key: t.liveKey });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('route_not_found');
  });
});
