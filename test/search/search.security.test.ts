import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Tenant, useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { addNote, search } from './search.fixtures.ts';

for (const dialect of DIALECTS) {
  describe(`POST /v1/search security (${dialect})`, () => {
    const h = useHarness(dialect);
    let alice: Tenant;
    let bob: Tenant;
    let aliceNote: string;
    let bobNote: string;
    let aliceTestNote: string;

    beforeAll(async () => {
      alice = await h.tenant();
      bob = await h.tenant();
      aliceNote = await addNote(h, alice, {
        title: 'Quarkonium roadmap',
        transcript:
          'Ann: The quarkonium detector upgrade ships in May.\nBen: Then the quarkonium calibration follows.',
      });
      bobNote = await addNote(h, bob, {
        title: 'Quarkonium budget',
        transcript:
          'Cat: Our quarkonium budget is tight this year.\nDee: The quarkonium team needs two more people.',
      });
      aliceTestNote = await addNote(
        h,
        alice,
        { title: 'Quarkonium test', transcript: 'Eve: A quarkonium note in the test data space.' },
        'test',
      );
    });

    it('needs an API key (401 with WWW-Authenticate)', async () => {
      const res = await h.request('POST', '/v1/search', { body: { query: 'quarkonium' } });
      expectApiError(res, 401, 'api_key_missing');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expectApiError(
        await h.request('POST', '/v1/search', { key: 'svc_sk_live_nope', body: { query: 'quarkonium' } }),
        401,
      );
      expectApiError(
        await h.request('POST', '/v1/search', {
          key: await alice.revokedKey(),
          body: { query: 'quarkonium' },
        }),
        401,
        'api_key_revoked',
      );
      expectApiError(
        await h.request('POST', '/v1/search', {
          key: await alice.expiredKey(),
          body: { query: 'quarkonium' },
        }),
        401,
        'api_key_expired',
      );
    });

    it('needs the search scope, checked before the body is validated (403 names the scope)', async () => {
      const key = await alice.keyWithScopes(['notes:read']);
      const res = await h.request('POST', '/v1/search', { key, body: { query: '' } });
      expectApiError(res, 403, 'insufficient_scope');
      expect(res.body.error.message).toContain('search');
      const scoped = await alice.keyWithScopes(['search']);
      expect((await search(h, scoped, { query: 'quarkonium' })).map((r) => r.note_id)).toEqual([aliceNote]);
    });

    it("never returns another account's notes", async () => {
      const forAlice = await search(h, alice.liveKey, { query: 'quarkonium budget team', min_relevance: 0 });
      expect(forAlice.map((r) => r.note_id)).toEqual([aliceNote]);
      const forBob = await search(h, bob.liveKey, { query: 'quarkonium detector upgrade', min_relevance: 0 });
      expect(forBob.map((r) => r.note_id)).toEqual([bobNote]);
    });

    it('keeps the live and test data spaces apart', async () => {
      const live = await search(h, alice.liveKey, { query: 'quarkonium', min_relevance: 0 });
      expect(live.map((r) => r.note_id)).not.toContain(aliceTestNote);
      const test = await search(h, alice.testKey, { query: 'quarkonium', min_relevance: 0 });
      expect(test.map((r) => r.note_id)).toContain(aliceTestNote);
      expect(test.map((r) => r.note_id)).not.toContain(aliceNote);
    });

    it('declares its scope in the OpenAPI document', async () => {
      const doc = (await (await h.app.request('/v1/openapi.json')).json()) as any;
      const operation = doc.paths['/v1/search'].post;
      expect(operation.description).toContain('Scope: `search`.');
      expect(operation.requestBody.content['application/json'].schema).toBeDefined();
    });
  });
}
