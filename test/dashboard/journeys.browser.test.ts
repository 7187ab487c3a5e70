import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { wavHeader } from '../recordings/audio-fixtures.ts';
import { browserAvailable, expectAccessible, screenshot, useDashboardInBrowser } from './browser.ts';

const PASSWORD = 'a long dashboard password';

const TRANSCRIPT_VTT = `WEBVTT

00:00:01.000 --> 00:00:06.000
<v Maya>The budget was exceeded by twelve percent, mostly on contractors.

00:00:06.500 --> 00:00:11.000
<v Daniel>Then finance needs a revised forecast before the board meeting.

00:00:11.500 --> 00:00:17.000
<v Maya>I will send the revised forecast to finance by Friday.

00:00:17.500 --> 00:00:23.000
<v Daniel>I will book the venue for the offsite next week.

00:00:23.500 --> 00:00:29.000
<v Maya>Great. Let's also review the contractor spending in the next planning meeting.
`;

/** Thirty seconds of 8 kHz 16-bit mono silence as a WAV file. */
function silentWav(marker = ''): Buffer {
  const samples = 8000 * 30;
  const data = samples * 2;
  const b = Buffer.concat([wavHeader(data, 8000), Buffer.alloc(data)]);
  b.write(marker, 44);
  return b;
}

/** A local webhook receiver: records every request, answers 200. */
function startReceiver() {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('error', () => {});
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  return new Promise<{ url: string; received: typeof received; close(): Promise<void> }>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/hook`,
        received,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}

/**
 * A fake OpenAI-compatible transcriber: answers timed, diarized segments, or a 400 for files named `broken…`
 * (a reason the note then fails with).
 */
function startTranscriber() {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => {});
    req.on('end', () => {
      if (Buffer.concat(chunks).includes('UNREADABLE')) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'Audio file is unreadable.' } }));
        return;
      }
      const lines: [string, number, string][] = [
        ['A', 1, 'Standup: the login bug is fixed and deployed to staging.'],
        ['B', 7, 'The mobile release is blocked on the store review.'],
        ['A', 13, 'I will write the incident report for the outage by Thursday.'],
        ['B', 19, 'I will ask the store team about the review status tomorrow.'],
      ];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          duration: 30,
          segments: lines.map(([speaker, start, text]) => ({ speaker, start, end: start + 5, text })),
        }),
      );
    });
  });
  return new Promise<{ url: string; close(): Promise<void> }>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}

/** Polls until the condition holds (no fixed sleeps that assume an idle machine). */
async function until(check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.runIf(browserAvailable())(
  'dashboard in Chromium: the journeys of issue 14',
  { timeout: 90_000 },
  () => {
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let transcriber: Awaited<ReturnType<typeof startTranscriber>>;
    let noteUrl = '';

    // Started before the dashboard, which is given the transcriber's URL, and stopped after it.
    beforeAll(async () => {
      transcriber = await startTranscriber();
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
      await transcriber?.close();
    });

    const dashboard = useDashboardInBrowser(() => ({
      TRANSCRIBER: 'openai',
      TRANSCRIBE_BASE_URL: transcriber.url,
      TRANSCRIBE_API_KEY: 'test',
      JOB_MAX_ATTEMPTS: '1',
      WEBHOOKS_POLL_MS: '50',
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
    }));
    let server: RunningServer;
    let page: Page;
    beforeAll(() => {
      ({ server, page } = dashboard);
    });

    it('set-up link from the first start → choose a password → sign in', async () => {
      const link = /(http:\/\/\S+\/setup\?token=\S+)/.exec(dashboard.banner())?.[1];
      expect(link).toBeDefined();
      await page.goto(link!.replace(/^http:\/\/localhost:\d+/, server.url));
      await expect(page.getByRole('heading', { name: 'Choose your password' }).isVisible()).resolves.toBe(
        true,
      );
      await expectAccessible(page);
      await page.getByLabel('New password').fill(PASSWORD);
      await page.getByLabel('Repeat the password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Set password' }).click();
      await page.waitForURL(/\/sign-in\?setup=done$/);
      await expectAccessible(page);
      await screenshot(page, 'sign-in');
      await page.getByLabel('Email').fill('owner@localhost');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${server.url}/`);
      await expect(page.getByRole('heading', { level: 1, name: 'Notes' }).isVisible()).resolves.toBe(true);
      await expectAccessible(page);
    });

    it('uploads a transcript file and watches the note become ready', async () => {
      await page.getByRole('link', { name: 'Upload', exact: true }).click();
      await expectAccessible(page);
      await page.setInputFiles('#file', {
        name: 'budget-review.vtt',
        mimeType: 'text/vtt',
        buffer: Buffer.from(TRANSCRIPT_VTT),
      });
      await page.getByLabel('Tags (optional)').fill('finance, planning');
      await screenshot(page, 'upload');
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.waitForURL(/\/notes\/note_/);
      noteUrl = page.url();
      // Processing updates the page by itself: wait for the summary to be written.
      await page.getByRole('heading', { name: 'Summary' }).waitFor();
      await page.locator('[data-status="processing"]').waitFor({ state: 'detached', timeout: 60_000 });
      await expect(page.getByText('Processing failed').count()).resolves.toBe(0);
      await expect(page.locator('.transcript li').count()).resolves.toBe(5);
      await expect(page.locator('.transcript .speaker').first().textContent()).resolves.toBe('Maya');
      await expectAccessible(page);
      await screenshot(page, 'note');
    });

    it('uploads audio: transcript with speakers, Highlights and Transcript times seek the player (Range)', async () => {
      await page.goto(`${server.url}/upload`);
      await page.setInputFiles('#file', { name: 'standup.wav', mimeType: 'audio/wav', buffer: silentWav() });
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.waitForURL(/\/notes\/note_/);
      await page.locator('[data-status="processing"]').waitFor({ state: 'detached', timeout: 60_000 });
      await expect(page.locator('.transcript .speaker').first().textContent()).resolves.toBe('Speaker 1');
      const audio = page.locator('audio');
      await expect(audio.count()).resolves.toBe(1);
      await page.waitForFunction(
        () => ((globalThis as any).document.querySelector('audio')?.readyState ?? 0) >= 1,
      );
      const time = page.locator('.transcript [data-seek="13000"]');
      await time.click();
      await page.waitForFunction(
        () => (globalThis as any).document.querySelector('audio').currentTime >= 12.9,
      );
      if ((await page.locator('.highlights [data-seek]').count()) > 0) {
        const target = Number(
          await page.locator('.highlights [data-seek]').first().getAttribute('data-seek'),
        );
        await page.locator('.highlights [data-seek]').first().click();
        await page.waitForFunction(
          (ms) => Math.abs((globalThis as any).document.querySelector('audio').currentTime * 1000 - ms) < 250,
          target,
        );
      }
      const range = await page.request.get(`${page.url()}/audio`, { headers: { range: 'bytes=0-9' } });
      expect(range.status()).toBe(206);
      expect(range.headers()['content-range']).toBe(`bytes 0-9/${silentWav().length}`);
      expect((await range.body()).length).toBe(10);
      await expectAccessible(page);
      await screenshot(page, 'note-audio');
    });

    it('asks the notes: the answer cites the recording, and its citation plays the audio from the quoted moment', async () => {
      await page.goto(`${server.url}/`);
      await page.getByLabel('Ask your notes').fill('Who writes the incident report for the outage?');
      await page.getByRole('button', { name: 'Ask', exact: true }).click();
      await page.getByRole('heading', { name: /Answer to/ }).waitFor();
      await expect(page.locator('.answer').textContent()).resolves.toContain('incident report');
      const citation = page.locator('.citations li', { hasText: 'incident report' }).first();
      await expect(citation.locator('blockquote').textContent()).resolves.toBe(
        'I will write the incident report for the outage by Thursday.',
      );
      await expectAccessible(page);
      await screenshot(page, 'ask');
      await citation.getByRole('link').click();
      await page.waitForURL(/\/notes\/note_\w+#at-13000$/);
      await page.waitForFunction(
        () => ((globalThis as any).document.querySelector('audio')?.currentTime ?? 0) >= 12.9,
      );
    });

    it('a note whose processing fails shows the reason without a reload by hand', async () => {
      await page.goto(`${server.url}/upload`);
      await page.setInputFiles('#file', {
        name: 'broken.wav',
        mimeType: 'audio/wav',
        buffer: silentWav('UNREADABLE'),
      });
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.waitForURL(/\/notes\/note_/);
      await page.getByText(/Processing failed:.*unreadable/).waitFor({ timeout: 60_000 });
      await expectAccessible(page);
      await page.locator('summary', { hasText: 'Delete note' }).click();
      await page.getByRole('button', { name: 'Delete permanently' }).click();
      await page.getByText('The note was deleted.').waitFor();
    });

    it('browses with a tag filter, searches, and opens the note', async () => {
      await page.goto(`${server.url}/?tag=finance`);
      await expect(page.locator('.count').textContent()).resolves.toContain('1 note');
      await page.getByLabel('Search notes').fill('money spent on contractors over plan');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('heading', { name: /Results for/ }).waitFor();
      const result = page.locator('.results li').first();
      await expect(result.locator('.relevance').textContent()).resolves.toMatch(/Relevance \d+%/);
      await expect(result.locator('.snippet').textContent()).resolves.toMatch(/\w/);
      await expectAccessible(page);
      await screenshot(page, 'search');
      await result.getByRole('link').click();
      await page.waitForURL(noteUrl);
    });

    it('completes an action item with its checkbox and edits its assignee; the Action items page agrees', async () => {
      await page.goto(noteUrl);
      const items = page.locator('.items > li');
      expect(await items.count()).toBeGreaterThan(0);
      const text = (await items.first().locator('.check label').textContent())!;
      const box = page.getByRole('checkbox', { name: text });
      const reloaded = page.waitForEvent('framenavigated');
      await box.check();
      await reloaded;
      await page.waitForLoadState('load');
      await expect(page.getByRole('checkbox', { name: text }).isChecked()).resolves.toBe(true);
      await page.goto(`${server.url}/action-items?status=completed`);
      await expect(page.getByRole('checkbox', { name: text }).isChecked()).resolves.toBe(true);
      await page.getByRole('link', { name: 'Pending' }).click();
      await expect(page.getByRole('checkbox', { name: text }).count()).resolves.toBe(0);
      await expectAccessible(page);
      await screenshot(page, 'action-items');
    });

    it('renames a speaker: the transcript shows the new name', async () => {
      await page.goto(noteUrl);
      await page.locator('summary', { hasText: 'Rename speaker Maya' }).first().click();
      const name = page.getByLabel('New name for Maya', { exact: true });
      await name.fill('Maya Chen');
      await page.locator('form', { has: name }).getByRole('button', { name: 'Rename' }).click();
      await page.getByText('Maya is now shown as Maya Chen.').waitFor();
      await expect(page.locator('.transcript .speaker').first().textContent()).resolves.toBe('Maya Chen');
      await expect(page.locator('.transcript .speaker', { hasText: /^Maya$/ }).count()).resolves.toBe(0);
      await expectAccessible(page);
    });

    it('creates a key, shows it once, uses it with fetch, then revokes it', async () => {
      await page.goto(`${server.url}/settings/keys`);
      await page.getByText('Create key').first().click();
      await page.getByLabel('Name').fill('e2e reader');
      await page.getByLabel('Live').check();
      await page.getByLabel('notes:read').check();
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = (await page.locator('#new-key').textContent())!;
      expect(key).toMatch(/^svc_sk_live_/);
      await expectAccessible(page);
      await screenshot(page, 'api-keys');
      const ok = await fetch(`${server.url}/v1/notes`, { headers: { authorization: `Bearer ${key}` } });
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { meta: { total: number } }).meta.total).toBeGreaterThan(0);
      const denied = await fetch(`${server.url}/v1/webhooks`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(denied.status).toBe(403);
      // Shown once: the list only has the first characters.
      await page.goto(`${server.url}/settings/keys`);
      expect(await page.content()).not.toContain(key);
      const row = page.locator('tr', { hasText: 'e2e reader' });
      await row.locator('summary').click();
      await row.getByRole('button', { name: 'Revoke key' }).click();
      await page.getByText('Revoked the key').waitFor();
      const revoked = await fetch(`${server.url}/v1/notes`, { headers: { authorization: `Bearer ${key}` } });
      expect(revoked.status).toBe(401);
    });

    it('adds a webhook, sees a delivery reach a local receiver, and redelivers it', async () => {
      await page.goto(`${server.url}/settings/webhooks`);
      await page.getByText('Add webhook').first().click();
      await page.getByLabel('URL').fill(receiver.url);
      await page.getByLabel('Secret').fill('a webhook secret of some length');
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await page.getByRole('link', { name: receiver.url, exact: true }).waitFor();
      await expectAccessible(page);
      await screenshot(page, 'webhooks');
      // An event: a pasted transcript becomes a note.
      await page.goto(`${server.url}/upload`);
      await page
        .getByLabel('Or paste a transcript')
        .fill('Ana: We ship on Monday.\nBen: I will write the release notes.');
      await page.getByRole('button', { name: 'Upload' }).click();
      await page.waitForURL(/\/notes\/note_/);
      await until(() => receiver.received.length > 0);
      expect(receiver.received[0]!.headers['webhook-signature']).toBeDefined();
      await page.goto(`${server.url}/settings/webhooks`);
      await page.getByRole('link', { name: receiver.url, exact: true }).click();
      await until(async () => {
        await page.reload();
        return (await page.locator('tbody tr', { hasText: '200' }).count()) > 0;
      });
      await expectAccessible(page);
      await screenshot(page, 'webhook-deliveries');
      const before = receiver.received.length;
      await page
        .locator('tbody tr')
        .last()
        .getByRole('button', { name: /Redeliver/ })
        .click();
      await page.getByText('Redelivery queued').waitFor();
      await until(() => receiver.received.length > before);
      // "Send test event": a signed webhook.test reaches the receiver, the outcome and the delivery are shown.
      await page.getByRole('button', { name: /Send test event/ }).click();
      await page.getByText(/Test event delivered \(status 200/).waitFor();
      expect(receiver.received.some((r) => r.headers['x-svc-event'] === 'webhook.test')).toBe(true);
      await expect(
        page.locator('tbody tr', { hasText: 'webhook.test' }).first().textContent(),
      ).resolves.toContain('200');
      await expectAccessible(page);
    });

    it('shows MCP settings with this server’s URL', async () => {
      await page.goto(`${server.url}/settings/mcp`);
      for (const client of ['Cursor', 'VS Code', 'Claude Code', 'Claude Desktop']) {
        await expect(page.getByRole('heading', { name: client }).isVisible()).resolves.toBe(true);
      }
      expect(await page.locator('#mcp-cursor').textContent()).toContain(`${server.url}/mcp`);
      await expectAccessible(page);
      await screenshot(page, 'mcp');
    });

    it('the Test mode switch shows the test data space only, with a banner', async () => {
      await page.goto(`${server.url}/`);
      const liveTitle = (await page.locator('.cards h2 a').first().textContent())!;
      await page.getByRole('switch', { name: 'Test mode' }).click();
      await page.getByText(/you are viewing the account.s test data/).waitFor();
      await expect(
        page.getByRole('switch', { name: 'Test mode' }).getAttribute('aria-checked'),
      ).resolves.toBe('true');
      const titles = await page.locator('.cards h2 a').allTextContents();
      expect(titles.length).toBeGreaterThan(0);
      expect(titles).not.toContain(liveTitle);
      await expectAccessible(page);
      await screenshot(page, 'test-mode');
      await page.getByRole('switch', { name: 'Test mode' }).click();
      await page.waitForURL(`${server.url}/`);
      await expect(page.getByText(/you are viewing the account.s test data/).count()).resolves.toBe(0);
    });

    it('works from the keyboard: the skip link comes first and focus is visible', async () => {
      await page.goto(`${server.url}/`);
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const el = (globalThis as any).document.activeElement;
        const style = (globalThis as any).getComputedStyle(el);
        return { text: el.textContent, outline: style.outlineStyle, width: style.outlineWidth };
      });
      expect(focused.text).toBe('Skip to content');
      expect(focused.outline).not.toBe('none');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Tab');
      const next = await page.evaluate(
        () => (globalThis as any).document.activeElement.closest('main') !== null,
      );
      expect(next).toBe(true);
    });

    it('is usable at phone width', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(noteUrl);
      const overflow = await page.evaluate(() => {
        const w = globalThis as any;
        return w.document.documentElement.scrollWidth - w.innerWidth;
      });
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, 'phone-note');
      await page.setViewportSize({ width: 1200, height: 800 });
    });

    it('deletes a note after a confirmation that says it is permanent', async () => {
      await page.goto(noteUrl);
      await page.locator('summary', { hasText: 'Delete note' }).click();
      await expect(page.getByText('This is permanent.').isVisible()).resolves.toBe(true);
      await page.getByRole('button', { name: 'Delete permanently' }).click();
      await page.getByText('The note was deleted.').waitFor();
      await page.goto(noteUrl);
      await page.waitForURL(/\/\?missing=1$/);
    });

    it('signs out; the pages then ask to sign in', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You are signed out.').waitFor();
      await page.goto(`${server.url}/action-items`);
      await page.waitForURL(/\/sign-in\?next=/);
    });
  },
);
