import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, type TestResponse, useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { type ActionItemView, createNoteWithItems, storedItem } from './factories.ts';

const UNKNOWN = 'Q'.repeat(32);

/** Both operations, with a body that would pass validation. */
const operations = [
  {
    name: 'GET /v1/action-items',
    scope: 'actions:read',
    send: (h: Harness, key: string | null, _id: string) => h.request('GET', '/v1/action-items', { key }),
  },
  {
    name: 'PATCH /v1/action-items/:id',
    scope: 'actions:write',
    send: (h: Harness, key: string | null, id: string) =>
      h.request('PATCH', `/v1/action-items/${id}`, { key, body: { status: 'completed' } }),
  },
] as const;

function expect401(res: TestResponse, code: string) {
  expectApiError(res, 401, code);
  expect(res.headers.get('www-authenticate') ?? '').toMatch(/^Bearer\b/);
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect);

    for (const op of operations) {
      describe(op.name, () => {
        it('401 api_key_missing without a key', async () => {
          const t = await h.tenant();
          const { items } = await createNoteWithItems(h.db.db, { accountId: t.accountId, mode: 'live' });
          expect401(await op.send(h, null, items[0]!.id), 'api_key_missing');
          expect((await storedItem(h.db.db, items[0]!.id)).status).toBe('pending');
        });

        it.each([
          ['a malformed key', 'not-a-key'],
          ['a key with a wrong prefix', `svc_pk_live_${UNKNOWN}`],
          ['an unknown live key', `svc_sk_live_${UNKNOWN}`],
          ['an unknown test key', `svc_sk_test_${UNKNOWN}`],
        ])('401 api_key_invalid for %s', async (_, key) => {
          const t = await h.tenant();
          const { items } = await createNoteWithItems(h.db.db, { accountId: t.accountId, mode: 'live' });
          expect401(await op.send(h, key, items[0]!.id), 'api_key_invalid');
        });

        it('401 api_key_revoked for a revoked key, live or test', async () => {
          const t = await h.tenant();
          const { items } = await createNoteWithItems(h.db.db, { accountId: t.accountId, mode: 'live' });
          expect401(await op.send(h, await t.revokedKey('live'), items[0]!.id), 'api_key_revoked');
          expect401(await op.send(h, await t.revokedKey('test'), items[0]!.id), 'api_key_revoked');
          expect((await storedItem(h.db.db, items[0]!.id)).status).toBe('pending');
        });

        it('401 api_key_expired for an expired key', async () => {
          const t = await h.tenant();
          const { items } = await createNoteWithItems(h.db.db, { accountId: t.accountId, mode: 'live' });
          expect401(await op.send(h, await t.expiredKey('live'), items[0]!.id), 'api_key_expired');
          expect((await storedItem(h.db.db, items[0]!.id)).status).toBe('pending');
        });

        it(`403 insufficient_scope naming '${op.scope}' for a key without it`, async () => {
          const t = await h.tenant();
          const { items } = await createNoteWithItems(h.db.db, { accountId: t.accountId, mode: 'live' });
          const other = op.scope === 'actions:read' ? 'actions:write' : 'actions:read';
          for (const scopes of [['notes:read', 'notes:write', 'search'], [other]]) {
            const res = await op.send(h, await t.keyWithScopes(scopes), items[0]!.id);
            expectApiError(res, 403, 'insufficient_scope');
            expect(res.body.error.message).toContain(op.scope);
          }
          expect((await storedItem(h.db.db, items[0]!.id)).status).toBe('pending');
        });
      });
    }

    describe('order of checks on PATCH', () => {
      it('checks the scope before validating the body (403, not 400)', async () => {
        const t = await h.tenant();
        const { items } = await createNoteWithItems(h.db.db, { accountId: t.accountId, mode: 'live' });
        const res = await h.request('PATCH', `/v1/action-items/${items[0]!.id}`, {
          key: await t.keyWithScopes(['actions:read']),
          body: { status: 'archived', bogus: 1 },
        });
        expectApiError(res, 403, 'insufficient_scope');
      });

      it('checks the scope before looking the id up (403, not 404, for an unknown id)', async () => {
        const t = await h.tenant();
        const res = await h.request('PATCH', '/v1/action-items/ai_0000000000000000000000AB', {
          key: await t.keyWithScopes(['actions:read']),
          body: { status: 'completed' },
        });
        expectApiError(res, 403, 'insufficient_scope');
      });

      it('authenticates before anything else (401 with a bad body and an unknown id)', async () => {
        const res = await h.request('PATCH', '/v1/action-items/ai_0000000000000000000000AB', {
          key: null,
          raw: '{not json',
          headers: { 'content-type': 'application/json' },
        });
        expect401(res, 'api_key_missing');
      });
    });

    describe('account isolation', () => {
      it("404 for another account's item, which stays unchanged and is never listed", async () => {
        const owner = await h.tenant();
        const intruder = await h.tenant();
        const { noteId, items } = await createNoteWithItems(
          h.db.db,
          { accountId: owner.accountId, mode: 'live' },
          [{ text: 'Secret plan', assignee: 'Maya Chen' }],
        );

        const res = await h.request('PATCH', `/v1/action-items/${items[0]!.id}`, {
          key: intruder.liveKey,
          body: { status: 'completed', text: 'hijacked' },
        });
        expectApiError(res, 404, 'resource_not_found');
        expect(await storedItem(h.db.db, items[0]!.id)).toEqual(items[0]);

        const missing = await h.request('PATCH', '/v1/action-items/ai_0000000000000000000000AB', {
          key: intruder.liveKey,
          body: { status: 'completed', text: 'hijacked' },
        });
        // Same answer as for an id that does not exist: existence is not leaked.
        expect(res.body.error.message.replace(items[0]!.id, 'ID')).toBe(
          missing.body.error.message.replace('ai_0000000000000000000000AB', 'ID'),
        );

        for (const query of ['', `?note_id=${noteId}`, '?assignee=Maya%20Chen']) {
          const listed = await h.request('GET', `/v1/action-items${query}`, { key: intruder.liveKey });
          expect(listed.status).toBe(200);
          expect(listed.body.meta.total).toBe(0);
        }
      });
    });

    describe('mode isolation', () => {
      it('a test key gets 404 for a live item and a live key 404 for a test item; neither changes', async () => {
        const t = await h.tenant();
        const liveItem = (await createNoteWithItems(h.db.db, { accountId: t.accountId, mode: 'live' }))
          .items[0]!;
        const testItem = (await createNoteWithItems(h.db.db, { accountId: t.accountId, mode: 'test' }))
          .items[0]!;

        const fromTest = await h.request('PATCH', `/v1/action-items/${liveItem.id}`, {
          key: t.testKey,
          body: { status: 'completed' },
        });
        expectApiError(fromTest, 404, 'resource_not_found');
        const fromLive = await h.request('PATCH', `/v1/action-items/${testItem.id}`, {
          key: t.liveKey,
          body: { status: 'completed' },
        });
        expectApiError(fromLive, 404, 'resource_not_found');
        expect(await storedItem(h.db.db, liveItem.id)).toEqual(liveItem);
        expect(await storedItem(h.db.db, testItem.id)).toEqual(testItem);
      });

      it('a test key never lists live items, a live key never lists test items', async () => {
        const t = await h.tenant();
        const live = await createNoteWithItems(h.db.db, { accountId: t.accountId, mode: 'live' }, [
          { text: 'live 1' },
          { text: 'live 2', status: 'completed' },
        ]);

        // The test key's first request seeds its test space; none of that may appear in live.
        const testList = await h.request<{ data: ActionItemView[]; meta: { total: number } }>(
          'GET',
          '/v1/action-items?per_page=100',
          { key: t.testKey },
        );
        expect(testList.status).toBe(200);
        expect(testList.body.meta.total).toBeGreaterThan(0);
        const testIds = new Set(testList.body.data.map((i) => i.id));
        for (const item of live.items) expect(testIds.has(item.id)).toBe(false);
        expect(testList.body.data.some((i) => i.note_id === live.noteId)).toBe(false);
        const byNote = await h.request('GET', `/v1/action-items?note_id=${live.noteId}`, { key: t.testKey });
        expect(byNote.body.meta.total).toBe(0);

        const liveList = await h.request<{ data: ActionItemView[]; meta: { total: number } }>(
          'GET',
          '/v1/action-items?per_page=100',
          { key: t.liveKey },
        );
        expect(liveList.body.meta.total).toBe(2);
        expect(liveList.body.data.map((i) => i.id).sort()).toEqual(live.items.map((i) => i.id).sort());
      });

      it('a test key updates its own test items', async () => {
        const t = await h.tenant();
        const testItem = (await createNoteWithItems(h.db.db, { accountId: t.accountId, mode: 'test' }))
          .items[0]!;
        const res = await h.request('PATCH', `/v1/action-items/${testItem.id}`, {
          key: t.testKey,
          body: { status: 'completed' },
        });
        expect(res.status).toBe(200);
        expect((await storedItem(h.db.db, testItem.id)).status).toBe('completed');
      });
    });
  });
}
