import { describe, expect, it } from 'vitest';
import { oauthDb } from '../../src/features/oauth/oauth.tables.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { useServedApp } from '../helpers/serve.ts';
import { authorizeCode, pkcePair, REDIRECT_URI, tokenRequest } from './oauth-client.ts';

for (const dialect of DIALECTS) {
  describe(`OAuth client registration (${dialect})`, () => {
    const h = useHarness(dialect);
    const port = useServedApp(h);
    const base = () => `http://127.0.0.1:${port()}`;

    async function register(metadata: Record<string, unknown>) {
      const res = await fetch(`${base()}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Confidential',
          redirect_uris: [REDIRECT_URI],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          ...metadata,
        }),
      });
      return { status: res.status, body: (await res.json()) as any };
    }

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
        return tokenRequest(base(), {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          client_id: clientId,
          client_secret: clientSecret,
          code_verifier: pkce.verifier,
        });
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
  });
}
