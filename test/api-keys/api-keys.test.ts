import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../src/features/accounts/accounts.service.ts';
import {
  createApiKey,
  listApiKeys,
  revokeApiKey,
  verifyApiKey,
} from '../../src/features/api-keys/api-keys.service.ts';
import { SCOPES } from '../../src/features/api-keys/scopes.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { until } from '../helpers/until.ts';

for (const dialect of DIALECTS) {
  describe(`API keys (${dialect})`, () => {
    const h = useHarness(dialect);
    const account = () =>
      createAccount(h.deps, { email: `k-${Math.random().toString(36).slice(2)}@example.com` });

    it('creates live and test keys with ≥ 128 bits of randomness, stored only as SHA-256', async () => {
      const a = await account();
      const live = await createApiKey(h.deps, { accountId: a.id, mode: 'live' });
      const test = await createApiKey(h.deps, { accountId: a.id, mode: 'test' });
      expect(live.key).toMatch(/^svc_sk_live_[0-9A-Za-z]{32}$/);
      expect(test.key).toMatch(/^svc_sk_test_[0-9A-Za-z]{32}$/);
      expect(32 * Math.log2(62)).toBeGreaterThan(128);
      const rows = await h.db.db.selectFrom('api_keys').selectAll().where('account_id', '=', a.id).execute();
      const stored = JSON.stringify(rows);
      expect(stored).not.toContain(live.key);
      expect(stored).not.toContain(test.key);
      expect(rows.map((r) => r.key_hash).sort()).toEqual(
        [live.key, test.key].map((k) => createHash('sha256').update(k).digest('hex')).sort(),
      );
    });

    it('gives all seven scopes when none are named, and only the named ones otherwise', async () => {
      const a = await account();
      expect((await createApiKey(h.deps, { accountId: a.id, mode: 'live' })).scopes).toEqual([...SCOPES]);
      const narrow = await createApiKey(h.deps, {
        accountId: a.id,
        mode: 'live',
        scopes: ['search', 'search'],
      });
      expect(narrow.scopes).toEqual(['search']);
      await expect(
        createApiKey(h.deps, { accountId: a.id, mode: 'live', scopes: ['notes:admin'] }),
      ).rejects.toThrow(/Unknown scope/);
    });

    it('lists keys without the key or its hash', async () => {
      const a = await account();
      const created = await createApiKey(h.deps, { accountId: a.id, mode: 'live', name: 'ci' });
      const list = await listApiKeys(h.deps, a.id);
      expect(list).toHaveLength(1);
      expect(JSON.stringify(list)).not.toContain(created.key);
      expect(list[0]).not.toHaveProperty('key_hash');
      expect(list[0]!.start).toBe(created.key.slice(0, 16));
    });

    it('verifies a key into an actor, and refuses revoked and expired keys at once', async () => {
      const a = await account();
      const created = await createApiKey(h.deps, { accountId: a.id, mode: 'test', scopes: ['search'] });
      const actor = await verifyApiKey(h.deps, `Bearer ${created.key}`);
      expect(actor).toMatchObject({ accountId: a.id, mode: 'test', keyId: created.id });
      expect([...actor.scopes]).toEqual(['search']);
      await revokeApiKey(h.deps, created.id);
      await expect(verifyApiKey(h.deps, `Bearer ${created.key}`)).rejects.toMatchObject({
        code: 'api_key_revoked',
      });
      const expiring = await createApiKey(h.deps, {
        accountId: a.id,
        mode: 'live',
        expiresAt: new Date(Date.now() + 50).toISOString(),
      });
      await new Promise((r) => setTimeout(r, 80));
      await expect(verifyApiKey(h.deps, `Bearer ${expiring.key}`)).rejects.toMatchObject({
        code: 'api_key_expired',
      });
    });

    it('updates last_used_at at most once a minute', async () => {
      const a = await account();
      const created = await createApiKey(h.deps, { accountId: a.id, mode: 'live' });
      const lastUsed = async () =>
        (
          await h.db.db
            .selectFrom('api_keys')
            .select('last_used_at')
            .where('id', '=', created.id)
            .executeTakeFirstOrThrow()
        ).last_used_at;
      expect(await lastUsed()).toBeNull();
      await verifyApiKey(h.deps, `Bearer ${created.key}`);
      // Written after the request goes on (it does not wait for the write).
      const first = await until('last_used_at to be written', async () => (await lastUsed()) ?? undefined);
      await new Promise((r) => setTimeout(r, 5));
      await verifyApiKey(h.deps, `Bearer ${created.key}`);
      expect(await lastUsed()).toBe(first);
      const old = new Date(Date.now() - 61_000).toISOString();
      await h.db.db.updateTable('api_keys').set({ last_used_at: old }).where('id', '=', created.id).execute();
      await verifyApiKey(h.deps, `Bearer ${created.key}`);
      await until('last_used_at to be written again', async () =>
        (await lastUsed()) !== old ? true : undefined,
      );
    });
  });
}
