import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { createNote } from './notes.fixtures.ts';

const BODY = { speakers: [{ label: 'Speaker 1', name: 'Hijacked' }] };

for (const dialect of DIALECTS) {
  describe(`PATCH /v1/notes/:id/speakers security (${dialect})`, () => {
    const h = useHarness(dialect);

    it("another account's note and the other mode's note are 404, and stay untouched", async () => {
      const owner = await h.tenant();
      const intruder = await h.tenant();
      const note = await createNote(h, owner.liveKey, { transcript: 'Speaker 1: Private.' });
      for (const key of [intruder.liveKey, intruder.testKey, owner.testKey]) {
        const res = await h.request('PATCH', `/v1/notes/${note.id}/speakers`, { key, body: BODY });
        expectApiError(res, 404, 'resource_not_found');
      }
      const got = await h.request('GET', `/v1/notes/${note.id}`, { key: owner.liveKey });
      expect(got.body.speakers).toEqual([{ label: 'Speaker 1', name: 'Speaker 1' }]);
    });

    it('401 without a key, with a bad key and with a revoked key; 403 without notes:write', async () => {
      const t = await h.tenant();
      const note = await createNote(h, t.liveKey, { transcript: 'Speaker 1: Hello.' });
      const path = `/v1/notes/${note.id}/speakers`;
      expectApiError(await h.request('PATCH', path, { body: BODY }), 401, 'api_key_missing');
      expectApiError(
        await h.request('PATCH', path, { key: 'svc_sk_live_notavalidkeyatall000000000000', body: BODY }),
        401,
      );
      expectApiError(
        await h.request('PATCH', path, { key: await t.revokedKey(), body: BODY }),
        401,
        'api_key_revoked',
      );
      const readOnly = await t.keyWithScopes(['notes:read']);
      const res = await h.request('PATCH', path, { key: readOnly, body: BODY });
      expectApiError(res, 403, 'insufficient_scope');
      expect(res.body.error.message).toContain('notes:write');
      const got = await h.request('GET', `/v1/notes/${note.id}`, { key: t.liveKey });
      expect(got.body.speakers[0].name).toBe('Speaker 1');
    });
  });
}
