import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { useServedApp } from '../helpers/serve.ts';
import {
  authorizePath as authorizeUrl,
  BrowserLike,
  mcpCall,
  openConsent,
  pkcePair,
  postRegistration,
  REDIRECT_URI,
  redeemCode,
  refreshTokens,
  registerClient,
  tokenRequest,
} from './oauth-client.ts';

for (const dialect of DIALECTS) {
  describe(`OAuth for MCP clients: bad input and attacks (${dialect})`, () => {
    const h = useHarness(dialect);
    const port = useServedApp(h);
    const base = () => `http://127.0.0.1:${port()}`;

    const register = (metadata: Record<string, unknown>) =>
      postRegistration(base(), { client_name: 'X', redirect_uris: [REDIRECT_URI], ...metadata });

    it('registration refuses a redirect URI that is neither https nor loopback http', async () => {
      for (const uri of ['http://example.com/cb', 'javascript:alert(1)', 'https://example.com/cb#frag']) {
        const res = await register({ redirect_uris: [uri] });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatch(/^invalid_(redirect_uri|client_metadata)$/);
      }
    });

    it('registration refuses malformed JSON with an OAuth error, not a 500', async () => {
      const res = await fetch(`${base()}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"redirect_uris": [',
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toBe('invalid_request');
    });

    it('an unregistered redirect URI is never redirected to: the error is shown on our own page', async () => {
      const clientId = await registerClient(base());
      const browser = new BrowserLike(base());
      const res = await browser.get(authorizeUrl(clientId, { redirect_uri: 'https://attacker.example/cb' }));
      expect(res.status).toBe(400);
      expect(res.location).toBeNull();
      expect(res.text).toContain('redirect_uri');
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
    });

    it('an unknown client gets invalid_client on our page', async () => {
      const browser = new BrowserLike(base());
      const res = await browser.get(authorizeUrl('no-such-client'));
      expect(res.status).toBe(400);
      expect(res.location).toBeNull();
      expect(res.text).toContain('invalid_client');
    });

    it('PKCE is mandatory, S256 only', async () => {
      const clientId = await registerClient(base());
      const browser = new BrowserLike(base());
      const missing = await browser.get(
        authorizeUrl(clientId, {}, ['code_challenge', 'code_challenge_method']),
      );
      expect(new URL(missing.location!).searchParams.get('error')).toBe('invalid_request');
      const plain = await browser.get(authorizeUrl(clientId, { code_challenge_method: 'plain' }));
      expect(new URL(plain.location!).searchParams.get('error')).toBe('invalid_request');
    });

    it("a resource other than this server's /mcp is invalid_target", async () => {
      const clientId = await registerClient(base());
      const browser = new BrowserLike(base());
      const res = await browser.get(authorizeUrl(clientId, { resource: 'https://elsewhere.example/mcp' }));
      expect(new URL(res.location!).searchParams.get('error')).toBe('invalid_target');
    });

    it('an unknown scope is invalid_scope at /authorize, sent to the verified redirect URI before any sign-in', async () => {
      const clientId = await registerClient(base());
      const browser = new BrowserLike(base());
      const res = await browser.get(authorizeUrl(clientId, { scope: 'notes:read admin' }));
      expect(res.status).toBe(303);
      const callback = new URL(res.location!);
      expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
      expect(callback.searchParams.get('error')).toBe('invalid_scope');
      expect(callback.searchParams.get('error_description')).toContain('admin');
      expect(callback.searchParams.get('state')).toBe('s');
      expect(callback.searchParams.get('iss')).toBe(base());
      expect(callback.searchParams.get('code')).toBeNull();
      // Nothing waits for a person: no interaction was started.
      expect(browser.cookies.size).toBe(0);
    });

    it('an unknown scope with an unregistered redirect URI is shown on our own page, never redirected', async () => {
      const clientId = await registerClient(base());
      const res = await new BrowserLike(base()).get(
        authorizeUrl(clientId, { scope: 'admin', redirect_uri: 'https://attacker.example/cb' }),
      );
      expect(res.status).toBe(400);
      expect(res.location).toBeNull();
      expect(res.text).toContain('redirect_uri');
    });

    it('an unknown scope from a signed-in person is refused the same way; the consent page never offers it', async () => {
      const { authorize: res } = await openConsent(h, base(), await registerClient(base()), {
        scope: 'search delete_everything',
      });
      const callback = new URL(res.location!);
      expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
      expect(callback.searchParams.get('error')).toBe('invalid_scope');
    });

    it('the token endpoint answers RFC errors: unsupported_grant_type, invalid_grant, invalid_client, invalid_request', async () => {
      const clientId = await registerClient(base());
      expect(await tokenRequest(base(), { grant_type: 'password', client_id: clientId })).toMatchObject({
        status: 400,
        body: { error: 'unsupported_grant_type' },
      });
      expect(
        await redeemCode(
          base(),
          clientId,
          'guessed-code-value-guessed-code-value-00000',
          pkcePair().verifier,
        ),
      ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect(await refreshTokens(base(), 'nobody', 'guessed')).toMatchObject({
        status: 401,
        body: { error: 'invalid_client' },
      });
      expect(
        await tokenRequest(base(), { grant_type: 'authorization_code', client_id: clientId }),
      ).toMatchObject({
        status: 400,
        body: { error: 'invalid_request' },
      });
    });

    it('a guessed or malformed access token is a 401 with the resource_metadata challenge', async () => {
      for (const token of ['guessed-token-value', 'a'.repeat(600), 'not a token']) {
        const res = await mcpCall(base(), token, 'list_notes');
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
        expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
      }
    });

    it("the consent page refuses a post without the session's CSRF token or from another origin", async () => {
      const { browser, consentPath } = await openConsent(h, base(), await registerClient(base()));
      const noToken = await browser.request('POST', consentPath, {
        form: { decision: 'allow', scope: 'notes:read' },
      });
      expect(noToken.status).toBe(403);
      const page = await browser.get(consentPath);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
      const crossSite = await browser.request('POST', consentPath, {
        form: { _csrf: csrf, decision: 'allow', scope: 'notes:read' },
        headers: { origin: 'https://attacker.example' },
      });
      expect(crossSite.status).toBe(403);
    });

    it('the consent page answers only under our own host names (DNS rebinding): 421', async () => {
      const { browser, consentPath } = await openConsent(h, base(), await registerClient(base()));
      expect((await browser.get(consentPath)).status).toBe(200);
      // fetch sends its own Host; the name a proxy passes on is read first, so it stands in for a rebound Host.
      const host = 'rebind.attacker.example';
      const rebound = await browser.request('GET', consentPath, { headers: { 'x-forwarded-host': host } });
      expect(rebound.status).toBe(421);
      const posted = await browser.request('POST', consentPath, {
        form: { decision: 'allow', scope: 'notes:read' },
        headers: { 'x-forwarded-host': host, origin: `http://${host}` },
      });
      expect(posted.status).toBe(421);
    });

    it('the consent page sends a signed-out person to sign in and back', async () => {
      const clientId = await registerClient(base());
      const browser = new BrowserLike(base());
      const start = await browser.get(authorizeUrl(clientId));
      const consent = await browser.get(start.location!);
      expect(consent.status).toBe(303);
      expect(consent.location).toBe(
        `/sign-in?next=${encodeURIComponent(new URL(start.location!, base()).pathname)}`,
      );
    });
  });
}
