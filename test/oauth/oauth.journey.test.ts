import { describe, expect, it } from 'vitest';
import { hashOAuthId } from '../../src/features/oauth/oauth.records.ts';
import { oauthDb } from '../../src/features/oauth/oauth.tables.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { useServedApp } from '../helpers/serve.ts';
import {
  BrowserLike,
  mcpCall,
  openConsent,
  pkcePair,
  REDIRECT_URI,
  redeemCode,
  refreshTokens,
  registerClient,
  signIn,
  submitConsent,
} from './oauth-client.ts';

for (const dialect of DIALECTS) {
  describe(`OAuth for MCP clients: the journey (${dialect})`, () => {
    const h = useHarness(dialect);
    const port = useServedApp(h);
    const base = () => `http://127.0.0.1:${port()}`;

    /** Authorization up to the consent page, signed in; answers the browser and the consent page's path. */
    async function toConsent(clientId: string, pkce: { challenge: string }) {
      const { t, browser, authorize, consentPath } = await openConsent(h, base(), clientId, {
        code_challenge: pkce.challenge,
        scope: 'notes:read search',
        state: 'st-1',
        resource: `${base()}/mcp`,
      });
      expect(authorize.status).toBe(303);
      expect(authorize.location).toMatch(/\/oauth\/consent\/[A-Za-z0-9_-]+$/);
      return { t, browser, consentPath };
    }

    /** Allows on the consent page and follows the library's redirect to the client; answers the callback URL. */
    async function allow(browser: BrowserLike, consentPath: string, form: Record<string, string | string[]>) {
      const { page, posted, resumed } = await submitConsent(browser, consentPath, form);
      expect(page.status).toBe(200);
      expect(posted.status).toBe(303);
      expect(resumed.status).toBe(303);
      return new URL(resumed.location!);
    }

    /** Registers a client and allows it `scope` on live data; answers the client, its PKCE pair and the callback. */
    async function connectLive(scope: string[]) {
      const clientId = await registerClient(base());
      const pkce = pkcePair();
      const { browser, consentPath } = await toConsent(clientId, pkce);
      const callback = await allow(browser, consentPath, { scope, mode: 'live', decision: 'allow' });
      return { clientId, pkce, browser, code: callback.searchParams.get('code')! };
    }

    it('a client discovers the server from a 401, registers, gets consent, a code, tokens, and calls tools', async () => {
      const unauthenticated = await mcpCall(base(), null, 'list_notes');
      expect(unauthenticated.status).toBe(401);
      const challenge = unauthenticated.headers.get('www-authenticate')!;
      const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1]!;
      expect(metadataUrl).toBe(`${base()}/.well-known/oauth-protected-resource/mcp`);
      const resource = (await (await fetch(metadataUrl)).json()) as any;
      expect(resource).toMatchObject({
        resource: `${base()}/mcp`,
        authorization_servers: [base()],
        bearer_methods_supported: ['header'],
      });
      const as = (await (await fetch(`${base()}/.well-known/oauth-authorization-server`)).json()) as any;
      expect(as).toMatchObject({
        issuer: base(),
        code_challenge_methods_supported: ['S256'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        client_id_metadata_document_supported: true,
      });
      expect(as.token_endpoint_auth_methods_supported).toEqual(
        expect.arrayContaining(['none', 'client_secret_post']),
      );

      const clientId = await registerClient(base());
      const pkce = pkcePair();
      const { t, browser, consentPath } = await toConsent(clientId, pkce);
      const page = await browser.get(consentPath);
      expect(page.text).toContain('Journey Assistant');
      expect(page.text).toContain('127.0.0.1:9');
      const csp = page.headers.get('content-security-policy')!;
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("form-action 'self' http://127.0.0.1:9");

      const callback = await allow(browser, consentPath, {
        scope: ['notes:read'],
        mode: 'test',
        decision: 'allow',
      });
      expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
      expect(callback.searchParams.get('state')).toBe('st-1');
      const code = callback.searchParams.get('code')!;

      const tokens = await redeemCode(base(), clientId, code, pkce.verifier, { resource: `${base()}/mcp` });
      expect(tokens.status).toBe(200);
      expect(tokens.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
      expect(tokens.body.refresh_token).toEqual(expect.any(String));

      // Test mode: the seeded test data space; the narrowed grant has notes:read and not search.
      const listed = await mcpCall(base(), tokens.body.access_token, 'list_notes');
      expect(listed.status).toBe(200);
      expect(listed.body.result.isError).toBeFalsy();
      expect(listed.body.result.structuredContent.data.length).toBeGreaterThan(0);
      const searched = await mcpCall(base(), tokens.body.access_token, 'search_notes', { query: 'budget' });
      expect(searched.body.result.isError).toBe(true);
      expect(JSON.stringify(searched.body.result.content)).toContain('search');
      // A test-mode grant never reaches live data: a live note's id is not found.
      const live = await h.request('POST', '/v1/notes', {
        key: t.liveKey,
        body: { title: 'Live only', transcript: 'Speaker 1: The live numbers are final.' },
      });
      expect(live.status).toBe(202);
      const crossed = await mcpCall(base(), tokens.body.access_token, 'get_note', { note_id: live.body.id });
      expect(crossed.body.result.isError).toBe(true);
      expect(JSON.stringify(crossed.body.result.content)).toContain('resource_not_found');

      // A replayed code is refused and revokes what it issued.
      const replay = await redeemCode(base(), clientId, code, pkce.verifier);
      expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect((await mcpCall(base(), tokens.body.access_token, 'list_notes')).status).toBe(401);
    });

    it('refresh tokens rotate; a reused one revokes the grant; revocation ends a token', async () => {
      const { clientId, pkce, code } = await connectLive(['notes:read', 'search']);
      const first = await redeemCode(base(), clientId, code, pkce.verifier);
      expect(first.status).toBe(200);
      // Asking for more than was granted on refresh is refused.
      const wider = await refreshTokens(base(), clientId, first.body.refresh_token, {
        scope: 'notes:read notes:write',
      });
      expect(wider).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });

      const second = await refreshTokens(base(), clientId, first.body.refresh_token);
      expect(second.status).toBe(200);
      expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
      expect((await mcpCall(base(), second.body.access_token, 'list_notes')).status).toBe(200);

      const reused = await refreshTokens(base(), clientId, first.body.refresh_token);
      expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      // The whole grant is gone: the rotated refresh token and its access token too.
      const after = await refreshTokens(base(), clientId, second.body.refresh_token);
      expect(after).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect((await mcpCall(base(), second.body.access_token, 'list_notes')).status).toBe(401);
    });

    it('RFC 7009 revocation ends an access token at once', async () => {
      const { clientId, pkce, code } = await connectLive(['notes:read']);
      const tokens = await redeemCode(base(), clientId, code, pkce.verifier);
      expect((await mcpCall(base(), tokens.body.access_token, 'list_notes')).status).toBe(200);
      // The REST API takes API keys only (its OpenAPI operations list no oauth2 requirement).
      const rest = await fetch(`${base()}/v1/notes`, {
        headers: { authorization: `Bearer ${tokens.body.access_token}` },
      });
      expect(rest.status).toBe(401);
      const revoked = await fetch(`${base()}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: tokens.body.access_token, client_id: clientId }).toString(),
      });
      expect(revoked.status).toBe(200);
      expect((await mcpCall(base(), tokens.body.access_token, 'list_notes')).status).toBe(401);
    });

    it('Settings → MCP lists the connected app; Disconnect ends its tokens; another account cannot disconnect it', async () => {
      const { clientId, pkce, browser, code } = await connectLive(['notes:read']);
      const tokens = await redeemCode(base(), clientId, code, pkce.verifier);
      expect((await mcpCall(base(), tokens.body.access_token, 'list_notes')).status).toBe(200);
      const settings = await browser.get('/settings/mcp');
      expect(settings.text).toContain('Connected apps');
      expect(settings.text).toContain('Journey Assistant');
      const action = /action="(\/settings\/mcp\/connections\/[^"]+\/disconnect)"/.exec(settings.text)![1]!;
      const csrf = /name="_csrf" value="([^"]+)"/.exec(settings.text)![1]!;

      const other = new BrowserLike(base());
      await signIn(h, await h.tenant(), other);
      const otherCsrf = /name="_csrf" value="([^"]+)"/.exec((await other.get('/settings/mcp')).text)![1]!;
      await other.request('POST', action, { form: { _csrf: otherCsrf }, headers: { origin: base() } });
      expect((await mcpCall(base(), tokens.body.access_token, 'list_notes')).status).toBe(200);

      const done = await browser.request('POST', action, {
        form: { _csrf: csrf },
        headers: { origin: base() },
      });
      expect(done.status).toBe(303);
      expect((await mcpCall(base(), tokens.body.access_token, 'list_notes')).status).toBe(401);
      const refreshed = await refreshTokens(base(), clientId, tokens.body.refresh_token);
      expect(refreshed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect((await browser.get('/settings/mcp')).text).toContain('No app is connected.');
    });

    it('an expired code is invalid_grant; an expired access token is a 401', async () => {
      const records = () => oauthDb(h.deps.db).updateTable('oauth_records');
      const past = new Date(Date.now() - 1000).toISOString();
      const { clientId, pkce, code } = await connectLive(['notes:read']);
      await records()
        .set({ expires_at: past })
        .where('model', '=', 'AuthorizationCode')
        .where('id_hash', '=', hashOAuthId(code))
        .execute();
      const late = await redeemCode(base(), clientId, code, pkce.verifier);
      expect(late).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

      const second = pkcePair();
      const again = await toConsent(clientId, second);
      const back = await allow(again.browser, again.consentPath, {
        scope: ['notes:read'],
        mode: 'live',
        decision: 'allow',
      });
      const tokens = await redeemCode(base(), clientId, back.searchParams.get('code')!, second.verifier);
      expect((await mcpCall(base(), tokens.body.access_token, 'list_notes')).status).toBe(200);
      await records()
        .set({ expires_at: past })
        .where('model', '=', 'AccessToken')
        .where('id_hash', '=', hashOAuthId(tokens.body.access_token))
        .execute();
      expect((await mcpCall(base(), tokens.body.access_token, 'list_notes')).status).toBe(401);
    });

    it('Deny sends access_denied to the client', async () => {
      const clientId = await registerClient(base());
      const pkce = pkcePair();
      const { browser, consentPath } = await toConsent(clientId, pkce);
      const callback = await allow(browser, consentPath, { decision: 'deny' });
      expect(callback.searchParams.get('error')).toBe('access_denied');
      expect(callback.searchParams.get('code')).toBeNull();
    });
  });
}
