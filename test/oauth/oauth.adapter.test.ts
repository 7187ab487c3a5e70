import { describe, expect, it } from 'vitest';
import { DbAdapter } from '../../src/features/oauth/oauth.adapter.ts';
import { hashOAuthId, sweepExpiredOAuthRecords } from '../../src/features/oauth/oauth.records.ts';
import { oauthDb } from '../../src/features/oauth/oauth.tables.ts';
import { useTestDatabase } from '../helpers/before-all.ts';
import { DIALECTS } from '../helpers/dialects.ts';

for (const dialect of DIALECTS) {
  describe(`OAuth storage adapter (${dialect})`, () => {
    const handle = useTestDatabase(dialect);

    it('stores a record under the hash of its id only, finds it by the id, and hides it once expired', async () => {
      const tokens = new DbAdapter(handle.db, 'AccessToken');
      await tokens.upsert(
        'secret-token-value',
        { jti: 'secret-token-value', grantId: 'g1', scope: 'search' } as never,
        3600,
      );
      const rows = await oauthDb(handle.db).selectFrom('oauth_records').selectAll().execute();
      expect(JSON.stringify(rows)).not.toContain('secret-token-value');
      expect(rows[0]!.id_hash).toBe(hashOAuthId('secret-token-value'));
      expect(await tokens.find('secret-token-value')).toMatchObject({
        jti: 'secret-token-value',
        scope: 'search',
      });
      expect(await tokens.find('other')).toBeUndefined();

      await tokens.consume('secret-token-value');
      expect(await tokens.find('secret-token-value')).toMatchObject({ consumed: expect.any(Number) });

      await oauthDb(handle.db)
        .updateTable('oauth_records')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .execute();
      expect(await tokens.find('secret-token-value')).toBeUndefined();
      expect(await sweepExpiredOAuthRecords(handle.db)).toBe(1);
      expect(await oauthDb(handle.db).selectFrom('oauth_records').selectAll().execute()).toEqual([]);
    });

    it('revokes every record of a grant at once', async () => {
      const codes = new DbAdapter(handle.db, 'AuthorizationCode');
      const refresh = new DbAdapter(handle.db, 'RefreshToken');
      await codes.upsert('c1', { grantId: 'g2' } as never, 60);
      await refresh.upsert('r1', { grantId: 'g2' } as never, 60);
      await refresh.upsert('r2', { grantId: 'g3' } as never, 60);
      await refresh.revokeByGrantId('g2');
      expect(await codes.find('c1')).toBeUndefined();
      expect(await refresh.find('r1')).toBeUndefined();
      expect(await refresh.find('r2')).toBeDefined();
    });
  });
}
