import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { search, useTwoAccounts } from './search.fixtures.ts';

for (const dialect of DIALECTS) {
  describe(`POST /v1/search security (${dialect})`, () => {
    const h = useHarness(dialect);
    const accounts = useTwoAccounts(h, {
      alice:
        'Ann: The quarkonium detector upgrade ships in May.\nBen: Then the quarkonium calibration follows.',
      bob: 'Cat: Our quarkonium budget is tight this year.\nDee: The quarkonium team needs two more people.',
      aliceTest: 'Eve: A quarkonium note in the test data space.',
    });

    it('needs an API key (401 with WWW-Authenticate)', async () => {
      const res = await h.request('POST', '/v1/search', { body: { query: 'quarkonium' } });
      expectApiError(res, 401, 'api_key_missing');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const refused: [string, string | undefined][] = [
        ['svc_sk_live_nope', undefined],
        [await accounts.alice.revokedKey(), 'api_key_revoked'],
        [await accounts.alice.expiredKey(), 'api_key_expired'],
      ];
      for (const [key, code] of refused) {
        expectApiError(
          await h.request('POST', '/v1/search', { key, body: { query: 'quarkonium' } }),
          401,
          code,
        );
      }
    });

    it('needs the search scope, checked before the body is validated (403 names the scope)', async () => {
      const key = await accounts.alice.keyWithScopes(['notes:read']);
      const res = await h.request('POST', '/v1/search', { key, body: { query: '' } });
      expectApiError(res, 403, 'insufficient_scope');
      expect(res.body.error.message).toContain('search');
      const scoped = await accounts.alice.keyWithScopes(['search']);
      expect((await search(h, scoped, { query: 'quarkonium' })).map((r) => r.note_id)).toEqual([
        accounts.aliceNote,
      ]);
    });

    it("never returns another account's notes", async () => {
      const forAlice = await search(h, accounts.alice.liveKey, {
        query: 'quarkonium budget team',
        min_relevance: 0,
      });
      expect(forAlice.map((r) => r.note_id)).toEqual([accounts.aliceNote]);
      const forBob = await search(h, accounts.bob.liveKey, {
        query: 'quarkonium detector upgrade',
        min_relevance: 0,
      });
      expect(forBob.map((r) => r.note_id)).toEqual([accounts.bobNote]);
    });

    it('keeps the live and test data spaces apart', async () => {
      const live = await search(h, accounts.alice.liveKey, { query: 'quarkonium', min_relevance: 0 });
      expect(live.map((r) => r.note_id)).not.toContain(accounts.aliceTestNote);
      const test = await search(h, accounts.alice.testKey, { query: 'quarkonium', min_relevance: 0 });
      expect(test.map((r) => r.note_id)).toContain(accounts.aliceTestNote);
      expect(test.map((r) => r.note_id)).not.toContain(accounts.aliceNote);
    });

    it('declares its scope in the OpenAPI document', async () => {
      const doc = (await (await h.app.request('/v1/openapi.json')).json()) as any;
      const operation = doc.paths['/v1/search'].post;
      expect(operation.description).toContain('Scope: `search`.');
      expect(operation.requestBody.content['application/json'].schema).toBeDefined();
    });
  });
}
