import { describe, expect, it } from 'vitest';
import { createNote, getNote } from '../../src/features/notes/notes.service.ts';
import { webhooksDb } from '../../src/features/webhooks/webhooks.tables.ts';
import { hostAllowed } from '../../src/http/host-allow-list.ts';
import { actorOf } from '../helpers/actor.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Tenant, useHarness } from '../helpers/harness.ts';
import { csrfIn, DashboardClient, signedInClient } from './dashboard-client.ts';

describe.each(DIALECTS)('dashboard CSRF and Host allow-list (%s)', (dialect) => {
  const h = useHarness(dialect, { PUBLIC_URL: 'https://minutes.example.com' });

  const cookieOf = (client: DashboardClient) => [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');

  /** A raw POST with the client's cookies and this server's Origin unless told otherwise. */
  const post = (
    client: DashboardClient,
    path: string,
    body: string | FormData,
    headers: Record<string, string> = {},
  ) =>
    h.app.request(path, {
      method: 'POST',
      body,
      redirect: 'manual',
      headers: { cookie: cookieOf(client), origin: 'http://localhost', ...headers },
    });

  const webhookCount = async (t: Tenant) =>
    (
      await webhooksDb(h.db.db)
        .selectFrom('webhooks')
        .select('id')
        .where('account_id', '=', t.accountId)
        .execute()
    ).length;

  it('a multipart post without the CSRF token neither deletes a note nor adds a webhook; with it, it does', async () => {
    const t = await h.tenant();
    const note = await createNote(h.deps, actorOf(t.accountId), {
      title: 'Keep me',
      transcript: 'Ana: Hello.',
    } as never);
    const client = await signedInClient(h, t);
    const csrf = csrfIn((await client.get('/settings/webhooks')).text);

    const bare = new FormData();
    bare.set('x', '1');
    expect((await post(client, `/notes/${note.id}/delete`, bare)).status).toBe(403);
    expect((await getNote(h.deps, actorOf(t.accountId), note.id)).id).toBe(note.id);

    const hook = new FormData();
    hook.set('url', 'https://attacker.example/collect');
    const refused = await post(client, '/settings/webhooks', hook);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('CSRF token');
    expect(await webhookCount(t)).toBe(0);

    // Other content types carry the token only in the X-CSRF-Token header.
    const text = await post(client, `/notes/${note.id}/delete`, `_csrf=${csrf}`, {
      'content-type': 'text/plain',
    });
    expect(text.status).toBe(403);
    const json = await post(client, `/notes/${note.id}/delete`, JSON.stringify({ _csrf: csrf }), {
      'content-type': 'application/json',
    });
    expect(json.status).toBe(403);
    expect((await getNote(h.deps, actorOf(t.accountId), note.id)).id).toBe(note.id);

    const withToken = new FormData();
    withToken.set('_csrf', csrf);
    const deleted = await post(client, `/notes/${note.id}/delete`, withToken);
    expect(deleted.status).toBe(303);
    await expect(getNote(h.deps, actorOf(t.accountId), note.id)).rejects.toThrow();
  });

  it('a state-changing request needs an Origin, or failing that a Referer, of this server', async () => {
    const t = await h.tenant();
    const client = await signedInClient(h, t);
    const csrf = csrfIn((await client.get('/')).text);
    const form = (mode: string) => new URLSearchParams({ _csrf: csrf, mode }).toString();
    const type = { 'content-type': 'application/x-www-form-urlencoded' };
    const none = await h.app.request('/mode', {
      method: 'POST',
      body: form('test'),
      redirect: 'manual',
      headers: { cookie: cookieOf(client), ...type },
    });
    expect(none.status).toBe(403);
    const nullOrigin = await post(client, '/mode', form('test'), { ...type, origin: 'null' });
    expect(nullOrigin.status).toBe(403);
    const crossReferer = await h.app.request('/mode', {
      method: 'POST',
      body: form('test'),
      redirect: 'manual',
      headers: { cookie: cookieOf(client), referer: 'https://attacker.example/page', ...type },
    });
    expect(crossReferer.status).toBe(403);
    const sameReferer = await h.app.request('/mode', {
      method: 'POST',
      body: form('live'),
      redirect: 'manual',
      headers: { cookie: cookieOf(client), referer: 'http://localhost/upload', ...type },
    });
    expect(sameReferer.status).toBe(303);
    // Sign-in too: a post without Origin or Referer is refused before the form is read.
    const anonymous = new DashboardClient(h.app);
    const page = await anonymous.get('/sign-in');
    const signIn = await h.app.request('/sign-in', {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ _csrf: csrfIn(page.text), email: t.email, password: 'x' }).toString(),
      headers: { cookie: cookieOf(anonymous), ...type },
    });
    expect(signIn.status).toBe(403);
  });

  it('a rebound host name is refused (421) on every dashboard page; PUBLIC_URL, localhost and IP literals pass', async () => {
    const t = await h.tenant();
    const client = await signedInClient(h, t);
    for (const host of ['attacker.example', 'rebind.attacker.example:8080', 'localhost.attacker.example']) {
      const page = await client.request('GET', '/sign-in', { headers: { host } });
      expect(page.status).toBe(421);
      expect(page.text).toContain('PUBLIC_URL');
      const notes = await client.request('GET', '/', { headers: { host } });
      expect(notes.status).toBe(421);
      const signIn = await client.request('POST', '/sign-in', {
        form: { email: t.email, password: 'correct horse battery' },
        headers: { host, origin: `http://${host}` },
      });
      expect(signIn.status).toBe(421);
      const key = await client.request('POST', '/settings/keys', {
        form: { name: 'rebound', _csrf: csrfIn((await client.get('/settings/keys')).text) },
        headers: { host, origin: `http://${host}` },
      });
      expect(key.status).toBe(421);
    }
    for (const host of [
      'minutes.example.com',
      'MINUTES.example.com:443',
      'localhost:8080',
      '127.0.0.1:8080',
      '[::1]:8080',
      '192.168.1.20',
    ]) {
      expect((await client.request('GET', '/', { headers: { host } })).status).toBe(200);
    }
    // A proxy's X-Forwarded-Host (which a browser cannot set) is what is checked when present.
    const proxied = await client.request('GET', '/', {
      headers: { host: 'minutes:8080', 'x-forwarded-host': 'minutes.example.com' },
    });
    expect(proxied.status).toBe(200);
    // The API is not a browser's: its routes are not behind the list.
    const api = await h.request('GET', '/v1/notes', {
      key: t.liveKey,
      headers: { host: 'attacker.example' },
    });
    expect(api.status).toBe(200);
  });

  it('hostAllowed is derived from PUBLIC_URL plus the localhost forms', () => {
    expect(hostAllowed({}, 'minutes.example.com')).toBe(false);
    expect(hostAllowed({ publicUrl: 'https://minutes.example.com' }, 'minutes.example.com:8443')).toBe(true);
    expect(hostAllowed({}, 'app.localhost:3000')).toBe(true);
    expect(hostAllowed({}, 'evil.com/x')).toBe(false);
    expect(hostAllowed({}, '')).toBe(false);
  });
});
