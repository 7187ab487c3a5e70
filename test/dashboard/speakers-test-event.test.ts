import { describe, expect, it } from 'vitest';
import { createNote } from '../../src/features/notes/notes.service.ts';
import { createWebhook } from '../../src/features/webhooks/webhooks.service.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { actorOf } from '../helpers/actor.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Tenant, useHarness } from '../helpers/harness.ts';
import { useReceiver } from '../webhooks/receiver.ts';
import { csrfIn, signedInClient } from './dashboard-client.ts';

const TRANSCRIPT = [
  'Speaker 1: Welcome to the planning meeting. The budget review is on the agenda.',
  "Speaker 2: I'll send the updated budget report to finance by Friday.",
  'Speaker 1: Great, thanks everyone.',
].join('\n');

/** "Rename speaker" on a note's page and "Send test event" on Settings → Webhooks, over the services. */
describe.each(DIALECTS)('dashboard: rename speaker and send test event (%s)', (dialect) => {
  const h = useHarness(dialect, { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
  const { receiver, pathOf, requestsTo } = useReceiver();

  const signedIn = (t: Tenant) => signedInClient(h, t);

  async function readyNote(t: Tenant) {
    const note = await createNote(h.deps, actorOf(t.accountId), {
      title: 'Planning',
      transcript: TRANSCRIPT,
    } as never);
    await runDueJobs(h.deps);
    return note;
  }

  const hook = (t: Tenant, url: string) =>
    // The harness allows private targets (WEBHOOKS_ALLOW_PRIVATE_TARGETS): the receiver is on 127.0.0.1.
    createWebhook(h.deps, actorOf(t.accountId), { url, events: ['note.created'] });

  it('Rename speaker: the transcript, speakers and assignees show the new name; errors on the page', async () => {
    const t = await h.tenant();
    const note = await readyNote(t);
    const client = await signedIn(t);
    const before = await client.get(`/notes/${note.id}`);
    expect(before.text).toContain('Rename speaker');
    expect(before.text).toContain('Assignee: Speaker 2');
    expect(before.text).toMatch(/<label for="speaker-name-\d+">New name for Speaker 2<\/label>/);

    const done = await client.submit(`/notes/${note.id}`, `/notes/${note.id}/speakers`, {
      label: 'Speaker 2',
      name: '  Maya Chen ',
    });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`/notes/${note.id}`);
    const after = await client.get(`/notes/${note.id}`);
    expect(after.text).toContain('Speaker 2 is now shown as Maya Chen.');
    expect(after.text).toContain('Assignee: Maya Chen');
    expect(after.text).not.toContain('Assignee: Speaker 2');
    expect(after.text).toMatch(/<span class="speaker">Maya Chen<\/span> <span class="text">I&#39;ll send/);
    expect(after.text).toContain(
      '<span class="speaker">Maya Chen</span> <span class="hint">(Speaker 2)</span>',
    );

    // Bad input is shown on the page as the API would answer it; nothing changes.
    await client.submit(`/notes/${note.id}`, `/notes/${note.id}/speakers`, {
      label: 'Speaker 2',
      name: '   ',
    });
    const empty = await client.get(`/notes/${note.id}`);
    expect(empty.text).toMatch(/class="flash error"[^>]*>[^<]*name/);
    await client.submit(`/notes/${note.id}`, `/notes/${note.id}/speakers`, { label: 'Speaker 9', name: 'X' });
    const unknown = await client.get(`/notes/${note.id}`);
    expect(unknown.text).toContain('no speaker labelled &#39;Speaker 9&#39;');
    expect(unknown.text).toContain('Assignee: Maya Chen');
  });

  it('Rename speaker: refused without the CSRF token; another account’s note is not found', async () => {
    const [a, b] = [await h.tenant(), await h.tenant()];
    const mine = await readyNote(a);
    const theirs = await readyNote(b);
    const client = await signedIn(a);
    const page = await client.get(`/notes/${mine.id}`);
    const forged = await client.request('POST', `/notes/${mine.id}/speakers`, {
      form: { label: 'Speaker 1', name: 'Forged' },
    });
    expect(forged.status).toBe(403);
    const other = await client.request('POST', `/notes/${theirs.id}/speakers`, {
      form: { _csrf: csrfIn(page.text), label: 'Speaker 1', name: 'Hacked' },
    });
    expect(other.status).toBe(303);
    const redirected = await client.get(other.location!);
    expect(redirected.location).toBe('/?missing=1');
    expect((await client.get(redirected.location!)).text).toMatch(
      /class="flash error"[^>]*>No (note|webhook) with id/,
    );
    const own = await h.request<{ speakers: { name: string }[] }>('GET', `/v1/notes/${mine.id}`, {
      key: a.liveKey,
    });
    expect(own.body.speakers.map((s) => s.name)).toEqual(['Speaker 1', 'Speaker 2']);
    const api = await h.request<{ speakers: { name: string }[] }>('GET', `/v1/notes/${theirs.id}`, {
      key: b.liveKey,
    });
    expect(api.body.speakers.map((s) => s.name)).toEqual(['Speaker 1', 'Speaker 2']);
  });

  it('Send test event: the outcome is shown and the delivery is in the webhook’s list', async () => {
    const t = await h.tenant();
    const okPath = pathOf('ok');
    const failPath = pathOf('fail');
    receiver().respond((r) =>
      r.path === failPath ? { status: 500, body: 'no' } : { status: 200, body: 'ok' },
    );
    const ok = await hook(t, `${receiver().url}${okPath}`);
    const failing = await hook(t, `${receiver().url}${failPath}`);
    const client = await signedIn(t);
    const list = await client.get('/settings/webhooks');
    expect(list.text).toContain(`action="/settings/webhooks/${ok.id}/test"`);

    const sent = await client.submit('/settings/webhooks', `/settings/webhooks/${ok.id}/test`, {});
    expect(sent.status).toBe(303);
    expect(sent.location).toBe(`/settings/webhooks/${ok.id}`);
    const [arrived, ...more] = requestsTo(okPath);
    expect(more).toEqual([]);
    expect(arrived!.headers['x-svc-event']).toBe('webhook.test');
    const page = await client.get(sent.location!);
    expect(page.text).toMatch(/class="flash ok"[^>]*>Test event delivered \(status 200, \d+ ms\)\./);
    expect(page.text).toContain('1 delivery, newest first');
    expect(page.text).toMatch(/<td>webhook\.test<\/td>\s*<td>succeeded<\/td>\s*<td>1<\/td>\s*<td>200<\/td>/);

    await client.submit(`/settings/webhooks/${failing.id}`, `/settings/webhooks/${failing.id}/test`, {});
    const failed = await client.get(`/settings/webhooks/${failing.id}`);
    expect(failed.text).toMatch(/class="flash error"[^>]*>Test event not delivered \(status 500/);
    expect(failed.text).toMatch(/<td>webhook\.test<\/td>\s*<td>failed<\/td>/);
    expect(requestsTo(failPath)).toHaveLength(1);
  });

  it('Send test event: refused without the CSRF token; another account’s webhook is not found', async () => {
    const [a, b] = [await h.tenant(), await h.tenant()];
    const path = pathOf('iso');
    const mine = await hook(a, `${receiver().url}${path}`);
    const theirs = await hook(b, `${receiver().url}${path}`);
    const client = await signedIn(a);
    const page = await client.get('/settings/webhooks');
    const forged = await client.request('POST', `/settings/webhooks/${mine.id}/test`, { form: {} });
    expect(forged.status).toBe(403);
    const other = await client.request('POST', `/settings/webhooks/${theirs.id}/test`, {
      form: { _csrf: csrfIn(page.text) },
    });
    expect(other.status).toBe(303);
    // The flash is shown where the form redirects to; the other account's webhook page itself is not shown.
    const after = await client.get(other.location!); // the webhook page of another account: not shown
    expect(after.location).toBe('/settings/webhooks');
    expect((await client.get('/settings/webhooks')).text).toMatch(
      /class="flash error"[^>]*>No (note|webhook) with id/,
    );
    expect(requestsTo(path)).toEqual([]);
  });
});
