import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Tenant, useHarness } from '../helpers/harness.ts';
import { createProcessedNote } from './mcp-fixtures.ts';
import { callFails, callOk, ERAS, useMcpEndpoint } from './mcp-helpers.ts';

/** Each tool, a valid call for it, and the scope of the REST operation it wraps (API.md). */
const SCOPED_CALLS = (noteId: string, itemId: string) =>
  [
    ['search_notes', { query: 'budget' }, 'search'],
    ['ask_notes', { question: 'What about the budget?', note_id: noteId }, 'search'],
    ['list_notes', {}, 'notes:read'],
    ['get_note', { note_id: noteId }, 'notes:read'],
    ['get_transcript', { note_id: noteId }, 'notes:read'],
    ['list_highlights', { note_id: noteId }, 'notes:read'],
    ['update_note', { note_id: noteId, title: 'Renamed' }, 'notes:write'],
    [
      'rename_speakers',
      { note_id: noteId, speakers: [{ label: 'Speaker 1', name: 'Maya Chen' }] },
      'notes:write',
    ],
    ['get_note_export', { note_id: noteId, format: 'vtt' }, 'notes:read'],
    ['list_action_items', {}, 'actions:read'],
    ['update_action_item', { action_item_id: itemId, status: 'completed' }, 'actions:write'],
    ['list_webhooks', {}, 'webhooks:manage'],
  ] as const;

for (const dialect of DIALECTS) {
  describe(`MCP scopes and isolation (${dialect})`, () => {
    const h = useHarness(dialect);
    const mcp = useMcpEndpoint(h);
    let t: Tenant;
    let noteId: string;
    let itemId: string;
    let testNoteId: string;

    beforeAll(async () => {
      t = await h.tenant();
      noteId = await createProcessedNote(h, t.liveKey);
      itemId = (await h.request('GET', `/v1/action-items?note_id=${noteId}`, { key: t.liveKey })).body.data[0]
        .id;
      testNoteId = (await h.request('GET', '/v1/notes?per_page=1', { key: t.testKey })).body.data[0].id;
    });

    for (const era of ERAS) {
      describe(`${era} era`, () => {
        it('tools/list shows every tool whatever the key may call', async () => {
          const full = await mcp.connect(t.liveKey, era);
          const narrow = await mcp.connect(await t.keyWithScopes(['recordings:read']), era);
          const names = (await full.listTools()).tools.map((tool) => tool.name);
          expect((await narrow.listTools()).tools.map((tool) => tool.name)).toEqual(names);
        });

        it('each tool needs the scope of its REST operation; without it the result names that scope', async () => {
          for (const [tool, args, scope] of SCOPED_CALLS(noteId, itemId)) {
            const others = [
              'notes:read',
              'notes:write',
              'actions:read',
              'actions:write',
              'webhooks:manage',
              'search',
            ].filter((s) => s !== scope);
            const without = await mcp.connect(await t.keyWithScopes(others), era);
            const text = await callFails(without, tool, args, 'insufficient_scope');
            expect(text).toMatch(
              new RegExp(`^This API key lacks the '${scope}' scope needed for ${tool}\\.`),
            );
            expect(text).toContain(`--scopes ${scope}`);
            const withOnly = await mcp.connect(await t.keyWithScopes([scope]), era);
            await callOk(withOnly, tool, args);
          }
        });

        it('the scope is checked before the arguments and before the lookup', async () => {
          const readOnly = await mcp.connect(await t.keyWithScopes(['notes:read', 'actions:read']), era);
          await callFails(
            readOnly,
            'update_note',
            { note_id: 'note_000000000000000000000000', title: '' },
            'insufficient_scope',
          );
          await callFails(
            readOnly,
            'update_action_item',
            { action_item_id: 'nope', bogus: true },
            'insufficient_scope',
          );
          const nothing = await mcp.connect(await t.keyWithScopes(['webhooks:manage']), era);
          await callFails(
            nothing,
            'get_transcript',
            { note_id: noteId, cursor: '%%%' },
            'insufficient_scope',
          );
        });

        it('note resources need notes:read: none are listed, reading one names the scope', async () => {
          const client = await mcp.connect(await t.keyWithScopes(['actions:read']), era);
          expect((await client.listResources()).resources).toEqual([]);
          await expect(client.readResource({ uri: `note://${noteId}` })).rejects.toThrow(/'notes:read'/);
        });

        it('a test key never sees live data, a live key never sees test data', async () => {
          const live = await mcp.connect(t.liveKey, era);
          const test = await mcp.connect(t.testKey, era);
          const testNotes = await callOk(test, 'list_notes', { per_page: 100 });
          expect(testNotes.data.map((n: { id: string }) => n.id)).not.toContain(noteId);
          expect(testNotes.data.map((n: { id: string }) => n.id)).toContain(testNoteId);
          const liveNotes = await callOk(live, 'list_notes', { per_page: 100 });
          expect(liveNotes.data.map((n: { id: string }) => n.id)).not.toContain(testNoteId);

          for (const [tool, args] of [
            ['get_note', { note_id: noteId }],
            ['get_transcript', { note_id: noteId }],
            ['list_highlights', { note_id: noteId }],
            ['get_note_export', { note_id: noteId }],
            ['update_note', { note_id: noteId, title: 'Hijacked' }],
            ['rename_speakers', { note_id: noteId, speakers: [{ label: 'Speaker 1', name: 'Hijacked' }] }],
            ['update_action_item', { action_item_id: itemId, text: 'Hijacked' }],
          ] as const) {
            await callFails(test, tool, args, 'resource_not_found');
          }
          await callFails(live, 'get_note', { note_id: testNoteId }, 'resource_not_found');
          const items = await callOk(test, 'list_action_items', { note_id: noteId });
          expect(items.data).toEqual([]);
          await expect(test.readResource({ uri: `note://${noteId}` })).rejects.toThrow(/No note/);

          const after = await h.request('GET', `/v1/notes/${noteId}`, { key: t.liveKey });
          expect(after.body.title).not.toBe('Hijacked');
          expect(after.body.action_items.map((i: { text: string }) => i.text)).not.toContain('Hijacked');
        });

        it("another account's ids are not found, and its data is not listed", async () => {
          const other = await h.tenant();
          const client = await mcp.connect(other.liveKey, era);
          await callFails(client, 'get_note', { note_id: noteId }, 'resource_not_found');
          await callFails(
            client,
            'update_action_item',
            { action_item_id: itemId, status: 'completed' },
            'resource_not_found',
          );
          expect((await callOk(client, 'list_notes', {})).data).toEqual([]);
          expect((await callOk(client, 'list_action_items', {})).data).toEqual([]);
        });
      });
    }
  });
}
