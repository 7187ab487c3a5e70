import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { useProcessedAccount } from './mcp-fixtures.ts';
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
    const account = useProcessedAccount(h);

    for (const era of ERAS) {
      describe(`${era} era`, () => {
        it('tools/list shows every tool whatever the key may call', async () => {
          const full = await mcp.connect(account.t.liveKey, era);
          const narrow = await mcp.connect(await account.t.keyWithScopes(['recordings:read']), era);
          const names = (await full.listTools()).tools.map((tool) => tool.name);
          expect((await narrow.listTools()).tools.map((tool) => tool.name)).toEqual(names);
        });

        it('each tool needs the scope of its REST operation; without it the result names that scope', async () => {
          for (const [tool, args, scope] of SCOPED_CALLS(account.noteId, account.itemId)) {
            const others = [
              'notes:read',
              'notes:write',
              'actions:read',
              'actions:write',
              'webhooks:manage',
              'search',
            ].filter((s) => s !== scope);
            const without = await mcp.connect(await account.t.keyWithScopes(others), era);
            const text = await callFails(without, tool, args, 'insufficient_scope');
            expect(text).toMatch(
              new RegExp(`^This API key lacks the '${scope}' scope needed for ${tool}\\.`),
            );
            expect(text).toContain(`--scopes ${scope}`);
            const withOnly = await mcp.connect(await account.t.keyWithScopes([scope]), era);
            await callOk(withOnly, tool, args);
          }
        });

        it('the scope is checked before the arguments and before the lookup', async () => {
          const readOnly = await mcp.connect(
            await account.t.keyWithScopes(['notes:read', 'actions:read']),
            era,
          );
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
          const nothing = await mcp.connect(await account.t.keyWithScopes(['webhooks:manage']), era);
          await callFails(
            nothing,
            'get_transcript',
            { note_id: account.noteId, cursor: '%%%' },
            'insufficient_scope',
          );
        });

        it('note resources need notes:read: none are listed, reading one names the scope', async () => {
          const client = await mcp.connect(await account.t.keyWithScopes(['actions:read']), era);
          expect((await client.listResources()).resources).toEqual([]);
          await expect(client.readResource({ uri: `note://${account.noteId}` })).rejects.toThrow(
            /'notes:read'/,
          );
        });

        it('a test key never sees live data, a live key never sees test data', async () => {
          const live = await mcp.connect(account.t.liveKey, era);
          const test = await mcp.connect(account.t.testKey, era);
          const testNotes = await callOk(test, 'list_notes', { per_page: 100 });
          expect(testNotes.data.map((n: { id: string }) => n.id)).not.toContain(account.noteId);
          expect(testNotes.data.map((n: { id: string }) => n.id)).toContain(account.testNoteId);
          const liveNotes = await callOk(live, 'list_notes', { per_page: 100 });
          expect(liveNotes.data.map((n: { id: string }) => n.id)).not.toContain(account.testNoteId);

          for (const [tool, args] of [
            ['get_note', { note_id: account.noteId }],
            ['get_transcript', { note_id: account.noteId }],
            ['list_highlights', { note_id: account.noteId }],
            ['get_note_export', { note_id: account.noteId }],
            ['update_note', { note_id: account.noteId, title: 'Hijacked' }],
            [
              'rename_speakers',
              { note_id: account.noteId, speakers: [{ label: 'Speaker 1', name: 'Hijacked' }] },
            ],
            ['update_action_item', { action_item_id: account.itemId, text: 'Hijacked' }],
          ] as const) {
            await callFails(test, tool, args, 'resource_not_found');
          }
          await callFails(live, 'get_note', { note_id: account.testNoteId }, 'resource_not_found');
          const items = await callOk(test, 'list_action_items', { note_id: account.noteId });
          expect(items.data).toEqual([]);
          await expect(test.readResource({ uri: `note://${account.noteId}` })).rejects.toThrow(/No note/);

          const after = await h.request('GET', `/v1/notes/${account.noteId}`, { key: account.t.liveKey });
          expect(after.body.title).not.toBe('Hijacked');
          expect(after.body.action_items.map((i: { text: string }) => i.text)).not.toContain('Hijacked');
        });

        it("another account's ids are not found, and its data is not listed", async () => {
          const other = await h.tenant();
          const client = await mcp.connect(other.liveKey, era);
          await callFails(client, 'get_note', { note_id: account.noteId }, 'resource_not_found');
          await callFails(
            client,
            'update_action_item',
            { action_item_id: account.itemId, status: 'completed' },
            'resource_not_found',
          );
          expect((await callOk(client, 'list_notes', {})).data).toEqual([]);
          expect((await callOk(client, 'list_action_items', {})).data).toEqual([]);
        });
      });
    }
  });
}
