import { describe, expect, it } from 'vitest';
import { listConnections } from '../../src/features/oauth/oauth.connections.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { useServedApp } from '../helpers/serve.ts';
import {
  authorizeCode,
  mcpCall,
  pkcePair,
  redeemCode,
  refreshTokens,
  registerClient,
} from './oauth-client.ts';

const PARALLEL = 6;

for (const dialect of DIALECTS) {
  describe(`OAuth: redeeming codes and refresh tokens (${dialect})`, () => {
    const h = useHarness(dialect);
    const port = useServedApp(h);
    const base = () => `http://127.0.0.1:${port()}`;

    async function everyTokenDead(
      accountId: string,
      tokens: { access_token?: string; refresh_token?: string }[],
      clientId: string,
    ) {
      for (const token of tokens) {
        if (token.access_token)
          expect((await mcpCall(base(), token.access_token, 'list_notes')).status).toBe(401);
        if (token.refresh_token) {
          const again = await refreshTokens(base(), clientId, token.refresh_token);
          expect(again.status).toBe(400);
        }
      }
      expect(await listConnections(h.deps.db, accountId)).toEqual([]);
    }

    it('one code redeemed in parallel: exactly one 200, and the replay kills every token of the grant', async () => {
      const clientId = await registerClient(base());
      const pkce = pkcePair();
      const { t, code } = await authorizeCode(h, base(), clientId, pkce);
      const answers = await Promise.all(
        Array.from({ length: PARALLEL }, () => redeemCode(base(), clientId, code, pkce.verifier)),
      );
      const ok = answers.filter((a) => a.status === 200);
      expect(ok).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 200)) expect(a.body.error).toBe('invalid_grant');
      await everyTokenDead(
        t.accountId,
        ok.map((a) => a.body),
        clientId,
      );
    });

    it('one refresh token redeemed in parallel: exactly one 200, and the replay kills every token of the grant', async () => {
      const clientId = await registerClient(base());
      const pkce = pkcePair();
      const { t, code } = await authorizeCode(h, base(), clientId, pkce);
      const first = await redeemCode(base(), clientId, code, pkce.verifier);
      expect(first.status).toBe(200);
      expect(await listConnections(h.deps.db, t.accountId)).toHaveLength(1);
      const answers = await Promise.all(
        Array.from({ length: PARALLEL }, () => refreshTokens(base(), clientId, first.body.refresh_token)),
      );
      const ok = answers.filter((a) => a.status === 200);
      expect(ok).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 200)) expect(a.body.error).toBe('invalid_grant');
      await everyTokenDead(t.accountId, [first.body, ...ok.map((a) => a.body)], clientId);
    });

    it('a refresh naming another resource is invalid_target and leaves the refresh token usable', async () => {
      const clientId = await registerClient(base());
      const pkce = pkcePair();
      const { code } = await authorizeCode(h, base(), clientId, pkce);
      const first = await redeemCode(base(), clientId, code, pkce.verifier);
      expect(first.status).toBe(200);
      const elsewhere = await refreshTokens(base(), clientId, first.body.refresh_token, {
        resource: 'https://elsewhere.example/mcp',
      });
      expect(elsewhere).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
      const refreshed = await refreshTokens(base(), clientId, first.body.refresh_token, {
        resource: `${base()}/mcp`,
      });
      expect(refreshed.status).toBe(200);
      expect((await mcpCall(base(), refreshed.body.access_token, 'list_notes')).status).toBe(200);
    });
  });
}
