import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { useServedApp } from '../helpers/serve.ts';
import { authorizeCode, mcpCall, pkcePair, redeemCode, registerClient } from './oauth-client.ts';

for (const dialect of DIALECTS) {
  describe(`OAuth scopes (${dialect})`, () => {
    const h = useHarness(dialect);
    const port = useServedApp(h);
    const base = () => `http://127.0.0.1:${port()}`;

    it('no scope asks for every scope; the token holds the ones ticked on the consent page', async () => {
      const clientId = await registerClient(base());
      const pkce = pkcePair();
      const { code } = await authorizeCode(h, base(), clientId, pkce, { scope: '' });
      const token = await redeemCode(base(), clientId, code, pkce.verifier);
      expect(token.status).toBe(200);
      expect(token.body.scope.split(' ').sort()).toEqual(['notes:read', 'search']);
      expect((await mcpCall(base(), token.body.access_token, 'list_notes')).status).toBe(200);
    });

    it('no scope asks for the scopes the client registered, when it registered some', async () => {
      const clientId = await registerClient(base(), { scope: 'notes:read search' });
      const pkce = pkcePair();
      const { code } = await authorizeCode(h, base(), clientId, pkce, { scope: '' });
      const token = await redeemCode(base(), clientId, code, pkce.verifier);
      expect(token.status).toBe(200);
      expect(token.body.scope.split(' ').sort()).toEqual(['notes:read', 'search']);
    });
  });
}
