import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { createProcessedNote } from './mcp-fixtures.ts';
import { callFails, callOk, useMcpEndpoint } from './mcp-helpers.ts';

/** The MCP tools of speaker renames, exports and webhooks extras: the same services as their REST operations, the same answers. */
for (const dialect of DIALECTS) {
  describe(`MCP extension tools (${dialect})`, () => {
    const h = useHarness(dialect);
    const mcp = useMcpEndpoint(h);

    it('rename_speakers renames and merges as PATCH /v1/notes/:id/speakers does; bad labels are tool errors', async () => {
      const t = await h.tenant();
      const noteId = await createProcessedNote(h, t.liveKey);
      const client = await mcp.connect(t.liveKey, 'modern');
      const renamed = await callOk(client, 'rename_speakers', {
        note_id: noteId,
        speakers: [{ label: 'Speaker 2', name: 'Dan Okafor' }],
      });
      expect(renamed).toEqual({
        id: noteId,
        speakers: [
          { label: 'Speaker 1', name: 'Maya Chen' },
          { label: 'Speaker 2', name: 'Dan Okafor' },
        ],
      });
      const note = (await h.request('GET', `/v1/notes/${noteId}`, { key: t.liveKey })).body;
      expect(note.speakers).toEqual(renamed.speakers);
      expect(note.action_items.map((a: { assignee?: string }) => a.assignee)).not.toContain('Daniel Okafor');

      const merged = await callOk(client, 'rename_speakers', {
        note_id: noteId,
        merge: { from: 'Speaker 2', into: 'Speaker 1' },
      });
      expect(merged.speakers).toEqual([{ label: 'Speaker 1', name: 'Maya Chen' }]);
      await callFails(
        client,
        'rename_speakers',
        { note_id: noteId, speakers: [{ label: 'Speaker 2', name: 'X' }] },
        'parameter_invalid',
      );
      await callFails(client, 'rename_speakers', { note_id: noteId }, 'parameter_invalid');
    });

    it('get_note_export returns the file GET /v1/notes/:id/export serves; a bad format is a tool error', async () => {
      const t = await h.tenant();
      const noteId = await createProcessedNote(h, t.liveKey);
      const client = await mcp.connect(t.liveKey, 'legacy');
      for (const format of [undefined, 'md', 'srt', 'vtt', 'txt', 'json'] as const) {
        const result = await callOk(client, 'get_note_export', {
          note_id: noteId,
          ...(format ? { format } : {}),
        });
        const rest = await h.request(
          'GET',
          `/v1/notes/${noteId}/export${format ? `?format=${format}` : ''}`,
          {
            key: t.liveKey,
          },
        );
        expect(result).toMatchObject({
          note_id: noteId,
          format: format ?? 'md',
          file_name: `2026-09-14 Q3 budget review.${format ?? 'md'}`,
          content_type: rest.headers.get('content-type'),
          content: rest.text,
        });
      }
      await callFails(client, 'get_note_export', { note_id: noteId, format: 'pdf' }, 'parameter_invalid');
      const other = await mcp.connect((await h.tenant()).liveKey, 'legacy');
      await callFails(other, 'get_note_export', { note_id: noteId }, 'resource_not_found');
    });
  });
}
