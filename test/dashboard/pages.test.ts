import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/features/api-keys/api-keys.service.ts';
import { createNote } from '../../src/features/notes/notes.service.ts';
import { createWebhook } from '../../src/features/webhooks/webhooks.service.ts';
import { webhooksDb } from '../../src/features/webhooks/webhooks.tables.ts';
import { actorOf } from '../helpers/actor.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Tenant, useHarness } from '../helpers/harness.ts';
import { csrfIn, signedInClient } from './dashboard-client.ts';

describe.each(DIALECTS)('dashboard pages over the services (%s)', (dialect) => {
  const h = useHarness(dialect);

  const signedIn = (t: Tenant) => signedInClient(h, t);

  const note = (t: Tenant, title: string, mode: 'live' | 'test' = 'live') =>
    createNote(h.deps, actorOf(t.accountId, mode), { title, transcript: 'Ana: We ship on Monday.' } as never);

  it('shows only the account’s own data, in the session’s mode; other accounts’ ids are not found', async () => {
    const [a, b] = [await h.tenant(), await h.tenant()];
    const mine = await note(a, 'Mine, live');
    const theirs = await note(b, 'Theirs');
    const client = await signedIn(a);
    const list = await client.get('/');
    expect(list.text).toContain('Mine, live');
    expect(list.text).not.toContain('Theirs');
    expect((await client.get(`/notes/${mine.id}`)).status).toBe(200);
    expect((await client.get(`/notes/${theirs.id}`)).location).toBe('/?missing=1');
    // Another account's note cannot be changed or deleted through the dashboard either.
    const csrf = csrfIn(list.text);
    await client.request('POST', `/notes/${theirs.id}/delete`, { form: { _csrf: csrf } });
    await client.request('POST', `/notes/${theirs.id}`, { form: { _csrf: csrf, title: 'Hacked', tags: '' } });
    const still = await h.db.db
      .selectFrom('notes')
      .select('title')
      .where('id', '=', theirs.id)
      .executeTakeFirst();
    expect(still?.title).toBe('Theirs');
    // Test mode: the live note is not there, the seeded test notes are.
    await client.request('POST', '/mode', { form: { _csrf: csrf, mode: 'test' } });
    const test = await client.get('/');
    expect(test.text).not.toContain('Mine, live');
    expect(test.text).toMatch(/\d+ notes/);
    expect((await client.get(`/notes/${mine.id}`)).location).toBe('/?missing=1');
  });

  it('revokes only the account’s own keys and manages only its own webhooks', async () => {
    const [a, b] = [await h.tenant(), await h.tenant()];
    const other = await createApiKey(h.deps, { accountId: b.accountId, mode: 'live', name: 'B key' });
    const hook = await createWebhook(h.deps, actorOf(b.accountId), {
      url: 'https://example.com/hook',
      events: ['note.created'],
    });
    const client = await signedIn(a);
    const keys = await client.get('/settings/keys');
    expect(keys.text).not.toContain('B key');
    const csrf = csrfIn(keys.text);
    const revoke = await client.request('POST', `/settings/keys/${other.id}/revoke`, {
      form: { _csrf: csrf },
    });
    expect(revoke.status).toBe(303);
    const row = await h.db.db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('id', '=', other.id)
      .executeTakeFirst();
    expect(row?.revoked_at).toBeNull();
    expect((await client.get(`/settings/webhooks/${hook.id}`)).location).toBe('/settings/webhooks');
    await client.request('POST', `/settings/webhooks/${hook.id}/active`, {
      form: { _csrf: csrf, active: 'false' },
    });
    const stored = await webhooksDb(h.db.db)
      .selectFrom('webhooks')
      .select('active')
      .where('id', '=', hook.id)
      .executeTakeFirst();
    expect(stored?.active).toBe(1);
  });

  it('escapes user text: a title with markup is shown as text', async () => {
    const t = await h.tenant();
    await note(t, '<script>alert(1)</script> & "quotes"');
    const client = await signedIn(t);
    const list = await client.get('/');
    expect(list.text).not.toContain('<script>alert(1)</script>');
    expect(list.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;');
  });

  it('creates a key from the form: shown once, with the chosen mode, scopes and expiry', async () => {
    const t = await h.tenant();
    const client = await signedIn(t);
    const res = await client.submit('/settings/keys', '/settings/keys', {
      name: 'reader',
      mode: 'test',
      scopes: ['notes:read', 'search'],
      expires: '2099-01-31',
    });
    expect(res.status).toBe(201);
    const key = /<code id="new-key">([^<]+)<\/code>/.exec(res.text)?.[1];
    expect(key).toMatch(/^svc_sk_test_/);
    const api = await h.request('GET', '/v1/notes', { key: key! });
    expect(api.status).toBe(200);
    expect((await h.request('GET', '/v1/action-items', { key: key! })).status).toBe(403);
    const listed = await client.get('/settings/keys');
    expect(listed.text).not.toContain(key!);
    expect(listed.text).toContain('notes:read, search');
    const past = await client.submit('/settings/keys', '/settings/keys', {
      mode: 'live',
      expires: '2001-01-01',
    });
    expect(past.status).toBe(400);
    expect(past.text).toContain('in the future');
  });

  it('Upload: a JSON transcript file, pasted text, and clear errors for nothing or a wrong token', async () => {
    const t = await h.tenant();
    const client = await signedIn(t);
    const csrf = csrfIn((await client.get('/upload')).text);
    const post = (form: FormData) =>
      h.app.request('/upload', {
        method: 'POST',
        body: form,
        redirect: 'manual',
        headers: {
          cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          origin: 'http://localhost',
        },
      });
    const json = new FormData();
    json.set('_csrf', csrf);
    json.set('tags', 'imported, json');
    json.set(
      'file',
      new File(
        [
          JSON.stringify({
            segments: [{ speaker: 'Ana', start_ms: 0, end_ms: 4000, text: 'We ship on Monday.' }],
          }),
        ],
        'call.json',
        { type: 'application/json' },
      ),
    );
    const created = await post(json);
    expect(created.status).toBe(303);
    const noteId = /\/notes\/(note_\w+)$/.exec(created.headers.get('location') ?? '')?.[1];
    expect(noteId).toBeDefined();
    const stored = await h.db.db
      .selectFrom('notes')
      .select(['tags', 'status'])
      .where('id', '=', noteId!)
      .executeTakeFirst();
    expect(JSON.parse(stored!.tags)).toEqual(['imported', 'json']);

    const pasted = new FormData();
    pasted.set('_csrf', csrf);
    pasted.set('text', 'Ana: Ship it.\nBen: Agreed.');
    pasted.set('file', new File([], '', { type: 'application/octet-stream' }));
    expect((await post(pasted)).status).toBe(303);

    const empty = new FormData();
    empty.set('_csrf', csrf);
    const nothing = await post(empty);
    expect(nothing.status).toBe(400);
    expect(await nothing.text()).toContain('Choose a file or paste a transcript.');

    const forged = new FormData();
    forged.set('_csrf', 'x'.repeat(43));
    forged.set('text', 'Ana: Forged.');
    expect((await post(forged)).status).toBe(403);
  });

  it('the notes page needs far less than 200 KB of compressed JavaScript and CSS', async () => {
    const t = await h.tenant();
    const client = await signedIn(t);
    const page = await client.get('/');
    const assets = [...page.text.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toHaveLength(2);
    let total = 0;
    for (const asset of assets) {
      const res = await h.app.request(asset, { headers: { 'accept-encoding': 'gzip' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-encoding')).toBe('gzip');
      expect(res.headers.get('cache-control')).toContain('immutable');
      total += (await res.arrayBuffer()).byteLength;
    }
    total += gzipSync(page.text).length;
    expect(total).toBeLessThan(200 * 1024);
  });
});
