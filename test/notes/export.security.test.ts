import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { createNote } from './notes.fixtures.ts';

for (const dialect of DIALECTS) {
  describe(`GET /v1/notes/:id/export security (${dialect})`, () => {
    const h = useHarness(dialect);

    it("another account's note and the other mode's note are 404 in every format", async () => {
      const owner = await h.tenant();
      const intruder = await h.tenant();
      const note = await createNote(h, owner.liveKey, { title: 'Private' });
      for (const key of [intruder.liveKey, intruder.testKey, owner.testKey]) {
        for (const format of ['md', 'json', 'srt']) {
          const res = await h.request('GET', `/v1/notes/${note.id}/export?format=${format}`, { key });
          expectApiError(res, 404, 'resource_not_found');
          expect(res.text).not.toContain('Private');
        }
      }
    });

    it('401 without a key, with a bad key and with a revoked key; 403 without notes:read', async () => {
      const t = await h.tenant();
      const note = await createNote(h, t.liveKey);
      const path = `/v1/notes/${note.id}/export`;
      expectApiError(await h.request('GET', path), 401, 'api_key_missing');
      expectApiError(await h.request('GET', path, { key: 'svc_sk_live_notavalidkeyatall000000000000' }), 401);
      expectApiError(await h.request('GET', path, { key: await t.revokedKey() }), 401, 'api_key_revoked');
      const res = await h.request('GET', path, { key: await t.keyWithScopes(['notes:write', 'search']) });
      expectApiError(res, 403, 'insufficient_scope');
      expect(res.body.error.message).toContain('notes:read');
    });
  });
}
