import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSetupLink } from '../../src/features/users/users.service.ts';
import { browserAvailable, expectAccessible, launchBrowser } from '../dashboard/browser.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { useServedApp } from '../helpers/serve.ts';

const PASSWORD = 'a long dashboard password';

/** The client's loopback redirect URI (RFC 8252): records the callback's query, answers a page. */
function startCallbackServer() {
  const received: URL[] = [];
  const server = http.createServer((req, res) => {
    received.push(new URL(req.url ?? '/', 'http://127.0.0.1'));
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>Done</title><p>You can close this.');
  });
  return new Promise<{ url: string; received: URL[]; close(): Promise<void> }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
        received,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

/** An MCP client's OAuth state, in memory, as the SDK's OAuthClientProvider asks for it. */
function memoryProvider(redirectUrl: string) {
  const state: { client?: any; tokens?: any; verifier?: string; authorizationUrl?: URL } = {};
  return {
    state,
    provider: {
      get redirectUrl() {
        return redirectUrl;
      },
      get clientMetadata() {
        return {
          client_name: 'Browser Journey Client',
          redirect_uris: [redirectUrl],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        };
      },
      clientInformation: () => state.client,
      saveClientInformation: (info: unknown) => {
        state.client = info;
      },
      tokens: () => state.tokens,
      saveTokens: (tokens: unknown) => {
        state.tokens = tokens;
      },
      redirectToAuthorization: (url: URL) => {
        state.authorizationUrl = url;
      },
      saveCodeVerifier: (verifier: string) => {
        state.verifier = verifier;
      },
      codeVerifier: () => state.verifier!,
    },
  };
}

for (const dialect of DIALECTS) {
  describe.runIf(browserAvailable())(
    `OAuth for MCP clients in Chromium with the MCP SDK client (${dialect})`,
    () => {
      const h = useHarness(dialect);
      const port = useServedApp(h);
      let browser: Awaited<ReturnType<typeof launchBrowser>>;
      let callback: Awaited<ReturnType<typeof startCallbackServer>>;
      beforeAll(async () => {
        browser = await launchBrowser();
        callback = await startCallbackServer();
      }, 120_000);
      afterAll(async () => {
        await browser?.close();
        await callback?.close();
      });

      it('401 → discovery → registration → sign-in → consent (narrowed, Test) → code → token → tools → Disconnect', async () => {
        const base = `http://127.0.0.1:${port()}`;
        const t = await h.tenant();
        const { provider, state } = memoryProvider(callback.url);
        const mcpUrl = new URL('/mcp', base);

        const first = new Client({ name: 'journey', version: '1.0.0' });
        await expect(
          first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })),
        ).rejects.toThrow(UnauthorizedError);
        expect(state.client?.client_id).toEqual(expect.any(String));
        expect(state.authorizationUrl?.pathname).toBe('/oauth/authorize');

        const page = await browser.context.newPage();
        const { token } = await createSetupLink(h.deps, t.accountId);
        await page.goto(`${base}/setup?token=${token}`);
        await page.getByLabel('New password').fill(PASSWORD);
        await page.getByLabel('Repeat the password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Set password' }).click();
        await page.context().clearCookies();

        await page.goto(state.authorizationUrl!.href);
        await page.waitForURL(/\/sign-in\?next=/);
        await page.getByLabel('Email').fill(t.email);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(/\/oauth\/consent\//);
        await expect(page.getByRole('heading', { level: 1 })).toBeDefined();
        expect(await page.textContent('h1')).toContain('Browser Journey Client');
        await expectAccessible(page);
        const boxes = page.locator('input[name="scope"]');
        for (let i = 0; i < (await boxes.count()); i++) {
          const box = boxes.nth(i);
          if ((await box.getAttribute('value')) !== 'notes:read') await box.uncheck();
        }
        await page.getByLabel('Test data').check();
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForURL(/\/callback\?/);
        // Chromium also asks the callback's host for /favicon.ico.
        const back = callback.received.findLast((u) => u.pathname === '/callback')!;
        expect(back.searchParams.get('code'), back.search).toEqual(expect.any(String));

        const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
        await transport.finishAuth(back.searchParams);
        expect(state.tokens?.access_token).toEqual(expect.any(String));
        const client = new Client({ name: 'journey', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
        const listed = (await client.callTool({ name: 'list_notes', arguments: {} })) as any;
        expect(listed.isError).toBeFalsy();
        expect(listed.structuredContent.data.length).toBeGreaterThan(0);
        const searched = (await client.callTool({ name: 'search', arguments: { query: 'budget' } })) as any;
        expect(searched.isError).toBe(true);
        await client.close();

        // Settings → MCP shows the connection; Disconnect ends it for the client.
        await page.goto(`${base}/settings/mcp`);
        expect(await page.textContent('main')).toContain('Browser Journey Client');
        await expectAccessible(page);
        await page.getByRole('button', { name: /Disconnect/ }).click();
        await page.waitForURL(/\/settings\/mcp$/);
        expect(await page.textContent('main')).toContain('No app is connected.');
        const after = await fetch(mcpUrl, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${state.tokens.access_token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        expect(after.status).toBe(401);
        await page.close();
      });
    },
  );
}
