import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { freshId } from '../helpers/routes.ts';
import { createNote } from './notes.fixtures.ts';

for (const dialect of DIALECTS) {
  describe(`GET /v1/notes/:id/export errors (${dialect})`, () => {
    const h = useHarness(dialect);

    it.each(['pdf', 'MD', '', 'md,txt', '%00'])('400 naming the formats for format=%s', async (format) => {
      const t = await h.tenant();
      const note = await createNote(h, t.liveKey);
      const res = await h.request('GET', `/v1/notes/${note.id}/export?format=${format}`, { key: t.liveKey });
      expectApiError(res, 400, 'parameter_invalid');
      expect(res.body.error.param).toBe('format');
      expect(res.body.error.message).toContain('md, txt, srt, vtt, json');
    });

    it('404 for ids that do not exist or are not note ids', async () => {
      const t = await h.tenant();
      for (const id of [freshId('note_'), 'nope', freshId('wh_')]) {
        expectApiError(
          await h.request('GET', `/v1/notes/${id}/export?format=md`, { key: t.liveKey }),
          404,
          'resource_not_found',
        );
      }
    });
  });
}
