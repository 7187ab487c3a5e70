import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';
import { useHarness } from '../helpers/harness.ts';
import { serveApp } from '../helpers/serve.ts';

describe('API reference at /docs', () => {
  const h = useHarness('sqlite');

  it('/docs needs no key and allows nothing from elsewhere; GET / is the dashboard', async () => {
    const root = await h.request('GET', '/', { key: null });
    expect(root.status).toBe(303);
    expect(root.headers.get('location')).toBe('/sign-in');

    const page = await h.request('GET', '/docs', { key: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('spec-url="/v1/openapi.json"');
    expect(page.text).toContain('src="/docs/redoc.standalone.js"');
    expect(page.text).not.toMatch(/https?:\/\//);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);

    const other = await h.request('DELETE', '/docs', { key: null });
    expect(other.status).toBe(405);
    expect(other.headers.get('allow')).toBe('GET, HEAD');
  });

  it('serves the Redoc bundle from node_modules, gzipped when asked, with an ETag', async () => {
    const plain = await h.app.request('/docs/redoc.standalone.js');
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/javascript/);
    expect((await plain.arrayBuffer()).byteLength).toBeGreaterThan(500_000);
    const gz = await h.app.request('/docs/redoc.standalone.js', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    const etag = plain.headers.get('etag')!;
    const again = await h.app.request('/docs/redoc.standalone.js', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
  });

  describe.skipIf(!fs.existsSync(CHROMIUM))('in Chromium, offline', () => {
    let url = '';
    let close: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      const server = await serveApp((req) => h.app.fetch(req));
      url = `http://127.0.0.1:${server.port}`;
      close = server.close;
    });
    afterAll(async () => {
      await close?.();
    });

    it('renders every tag and operation with no request leaving this machine', async () => {
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
      });
      try {
        const page = await browser.newPage();
        const blocked: string[] = [];
        const problems: string[] = [];
        await page.route('**/*', (route) => {
          const target = new URL(route.request().url());
          if (['http:', 'https:'].includes(target.protocol) && target.hostname !== '127.0.0.1') {
            blocked.push(target.href);
            return route.abort('blockedbyclient');
          }
          return route.continue();
        });
        page.on('console', (m) => {
          if (m.type() === 'error') problems.push(m.text());
        });
        page.on('pageerror', (e) => problems.push(String(e)));

        const response = await page.goto(`${url}/docs`);
        expect(response?.status()).toBe(200);
        await page.locator('h1', { hasText: 'Minutes API' }).waitFor({ timeout: 60_000 });
        // Tags and operations are headings of the middle panel (the sidebar's entries are collapsed).
        const headings = await page.locator('h1, h2').allTextContents();
        expect(headings.map((t) => t.trim())).toEqual(
          expect.arrayContaining(['Notes', 'Webhooks', 'List notes', 'Search notes', 'Create a webhook']),
        );
        // The event payloads (the document's `webhooks`) are rendered too.
        expect(headings.some((t) => t.startsWith('A note finished processing'))).toBe(true);
        const shot = process.env.DOCS_SCREENSHOT;
        if (shot) await page.screenshot({ path: shot });
        expect(blocked).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await browser.close();
      }
    }, 120_000);
  });
});
