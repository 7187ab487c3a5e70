import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Tenant, useHarness } from '../helpers/harness.ts';
import { createProcessedNote } from './mcp-fixtures.ts';
import { callFails, callOk, useMcpEndpoint } from './mcp-helpers.ts';

for (const dialect of DIALECTS) {
  describe(`MCP search and fetch, the ChatGPT connector shapes (${dialect})`, () => {
    const h = useHarness(dialect);
    const mcp = useMcpEndpoint(h);
    let t: Tenant;
    let noteId: string;
    beforeAll(async () => {
      t = await h.tenant();
      noteId = await createProcessedNote(h, t.liveKey);
    });

    it('search answers {results: [{id, title, url}]} with a dashboard url; fetch answers the note as text', async () => {
      const client = await mcp.connect(t.liveKey);
      const found = await callOk<{ results: { id: string; title: string; url: string }[] }>(
        client,
        'search',
        {
          query: 'budget',
        },
      );
      const hit = found.results.find((r) => r.id === noteId)!;
      expect(hit).toBeDefined();
      expect(Object.keys(hit).sort()).toEqual(['id', 'title', 'url']);
      expect(hit.url).toBe(`${mcp.url.origin}/notes/${noteId}`);

      const note = await callOk(client, 'fetch', { id: noteId });
      expect(note).toMatchObject({ id: noteId, title: hit.title, url: hit.url });
      expect(note.text.length).toBeGreaterThan(20);
      expect(note.metadata).toMatchObject({ created_at: expect.any(String), status: 'ready' });
    });

    it('need the scopes of the operations they wrap, and never cross modes', async () => {
      const noSearch = await mcp.connect(await t.keyWithScopes(['notes:read']));
      expect(await callFails(noSearch, 'search', { query: 'budget' }, 'insufficient_scope')).toContain(
        'search',
      );
      const noRead = await mcp.connect(await t.keyWithScopes(['search']));
      expect(await callFails(noRead, 'fetch', { id: noteId }, 'insufficient_scope')).toContain('notes:read');
      const testMode = await mcp.connect(t.testKey);
      await callFails(testMode, 'fetch', { id: noteId }, 'resource_not_found');
    });
  });
}
