import { describe, expect, it } from 'vitest';
import { hashOAuthId, sweepExpiredOAuthRecords } from '../../src/features/oauth/oauth.records.ts';
import { oauthDb } from '../../src/features/oauth/oauth.tables.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { useServedApp } from '../helpers/serve.ts';
import {
  authorizeCode,
  authorizePath,
  BrowserLike,
  CLIENT_METADATA,
  pkcePair,
  postRegistration,
  REDIRECT_URI,
  redeemCode,
  signIn,
} from './oauth-client.ts';

for (const dialect of DIALECTS) {
  describe(`OAuth clients: registration, secrets, redirect URIs, response modes (${dialect})`, () => {
    const h = useHarness(dialect);
    const port = useServedApp(h);
    const base = () => `http://127.0.0.1:${port()}`;

    const register = (metadata: Record<string, unknown>) =>
      postRegistration(base(), { client_name: 'Confidential', ...CLIENT_METADATA, ...metadata });

    it('a client secret is stored only as a hash and still authenticates; the hash does not', async () => {
      const reg = await register({ token_endpoint_auth_method: 'client_secret_post' });
      expect(reg.status).toBe(201);
      const { client_id: clientId, client_secret: secret } = reg.body;
      expect(typeof secret).toBe('string');
      const rows = await oauthDb(h.deps.db)
        .selectFrom('oauth_records')
        .select('payload')
        .where('model', '=', 'Client')
        .execute();
      const stored = rows.map((r) => JSON.parse(r.payload)).find((p) => p.client_id === clientId);
      expect(stored).toBeDefined();
      expect(JSON.stringify(rows)).not.toContain(secret);
      expect(stored.client_secret).toMatch(/^sha256:/);

      const redeem = async (clientSecret: string) => {
        const pkce = pkcePair();
        const { code } = await authorizeCode(h, base(), clientId, pkce);
        return redeemCode(base(), clientId, code, pkce.verifier, { client_secret: clientSecret });
      };
      expect(await redeem(stored.client_secret)).toMatchObject({
        status: 401,
        body: { error: 'invalid_client' },
      });
      expect(await redeem(`${secret}x`)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
      expect((await redeem(secret)).status).toBe(200);
    });

    it('metadata that makes the server fetch a URL (sector_identifier_uri, jwks_uri, request_uris) is refused', async () => {
      const cases: Record<string, unknown>[] = [
        { sector_identifier_uri: 'http://127.0.0.1:9/sector.json' },
        { jwks_uri: 'http://127.0.0.1:9/jwks.json' },
        { request_uris: ['http://127.0.0.1:9/request.jwt'] },
      ];
      for (const metadata of cases) {
        const res = await register({ token_endpoint_auth_method: 'none', ...metadata });
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('invalid_client_metadata');
        expect(res.body.error_description).toContain(Object.keys(metadata)[0]);
      }
    });

    it('registration caps client_name, redirect_uris and the metadata size', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ client_name: 'n'.repeat(201) }, 'client_name'],
        [
          { redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:9/cb${i}`) },
          'redirect_uris',
        ],
        [{ client_uri: `https://example.com/${'a'.repeat(9000)}` }, 'bytes'],
      ];
      for (const [metadata, named] of cases) {
        const res = await register({ token_endpoint_auth_method: 'none', ...metadata });
        expect(res.status).toBe(400);
        // RFC 7591 names a redirect URI problem invalid_redirect_uri.
        expect(res.body.error).toMatch(/^invalid_(client_metadata|redirect_uri)$/);
        expect(res.body.error_description).toContain(named);
      }
      expect(
        (await register({ token_endpoint_auth_method: 'none', client_name: 'n'.repeat(200) })).status,
      ).toBe(201);
    });

    it('a registration nobody connects lapses and is swept; a connected one stays', async () => {
      const records = () => oauthDb(h.deps.db).selectFrom('oauth_records').where('model', '=', 'Client');
      const unused = (await register({ token_endpoint_auth_method: 'none' })).body.client_id as string;
      const used = (await register({ token_endpoint_auth_method: 'none' })).body.client_id as string;
      await authorizeCode(h, base(), used, pkcePair());
      const expiryOf = async (clientId: string) =>
        (
          await records()
            .select('expires_at')
            .where('id_hash', '=', hashOAuthId(clientId))
            .executeTakeFirstOrThrow()
        ).expires_at;
      const lapse = Date.parse((await expiryOf(unused))!);
      expect(lapse).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
      expect(await expiryOf(used)).toBeNull();
      // Thirty days later:
      await oauthDb(h.deps.db)
        .updateTable('oauth_records')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('model', '=', 'Client')
        .where('id_hash', '=', hashOAuthId(unused))
        .execute();
      await sweepExpiredOAuthRecords(h.deps.db);
      const left = await records().select('id_hash').execute();
      expect(left.map((r) => r.id_hash)).not.toContain(hashOAuthId(unused));
      expect(left.map((r) => r.id_hash)).toContain(hashOAuthId(used));
    });

    it('a loopback IP redirect URI matches any port (RFC 8252 7.3); path, host and https ports still match exactly', async () => {
      const clientId = (
        await register({
          token_endpoint_auth_method: 'none',
          redirect_uris: [REDIRECT_URI, 'http://[::1]:9/cb', 'https://app.example/cb'],
        })
      ).body.client_id as string;
      for (const redirectUri of ['http://127.0.0.1:45678/callback', 'http://[::1]:5000/cb']) {
        const pkce = pkcePair();
        const { code } = await authorizeCode(h, base(), clientId, pkce, { redirect_uri: redirectUri });
        const token = await redeemCode(base(), clientId, code, pkce.verifier, { redirect_uri: redirectUri });
        expect(token.status).toBe(200);
      }
      for (const redirectUri of [
        'http://127.0.0.1:45678/other',
        'http://localhost:9/callback',
        'https://app.example:8443/cb',
        'http://127.0.0.1:45678/callback?x=1',
      ]) {
        const path = authorizePath(clientId, { redirect_uri: redirectUri }, ['state']);
        const res = await fetch(`${base()}${path}`, { redirect: 'manual' });
        expect(res.status).toBe(400);
        expect(await res.text()).toContain('redirect_uri');
      }
    });

    it('only the query response mode is accepted: fragment and form_post get invalid_request, never a code', async () => {
      const clientId = (await register({ token_endpoint_auth_method: 'none' })).body.client_id as string;
      const t = await h.tenant();
      const browser = new BrowserLike(base());
      await signIn(h, t, browser);
      for (const mode of ['fragment', 'form_post']) {
        const res = await browser.get(authorizePath(clientId, { response_mode: mode }));
        const answer = `${res.location ?? ''} ${res.text}`;
        expect(answer).toContain('invalid_request');
        expect(answer).not.toContain('code=');
        expect(res.location ?? '').not.toMatch(/\/oauth\/consent\//);
      }
    });

    it('malformed redirect_uris get the validation message of what is wrong, not one per character', async () => {
      const asString = await register({
        token_endpoint_auth_method: 'none',
        redirect_uris: 'https://a.example/cb',
      });
      expect(asString.status).toBe(400);
      expect(asString.body.error_description).toMatch(/redirect_uris must be an array/);
      const asObjects = await register({ token_endpoint_auth_method: 'none', redirect_uris: [{ a: 1 }] });
      expect(asObjects.status).toBe(400);
      expect(asObjects.body.error_description).not.toContain('[object Object]');
      expect(asObjects.body.error_description).toContain('redirect_uris');
    });
  });
}
