import type { Client } from '@modelcontextprotocol/client';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/features/api-keys/scopes.ts';
import { toolFailure } from '../../src/features/mcp/mcp.errors.ts';
import { MCP_TOOLS } from '../../src/features/mcp/mcp.tools.ts';
import { encodeTranscriptCursor } from '../../src/features/mcp/tools/notes.tools.ts';
import { AppError } from '../../src/lib/errors.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectNoLeak } from '../helpers/openapi-check.ts';
import { useProcessedAccount } from './mcp-fixtures.ts';
import { callFails, ERAS, useMcpEndpoint } from './mcp-helpers.ts';

/**
 * Failures come back as `isError` results carrying the REST API's message, a next step and the error code;
 * never as protocol errors, never with a stack trace.
 */
for (const dialect of DIALECTS) {
  describe(`MCP tool errors (${dialect})`, () => {
    const h = useHarness(dialect);
    const mcp = useMcpEndpoint(h);

    for (const era of ERAS) {
      describe(`${era} era`, () => {
        const account = useProcessedAccount(h);
        let client: Client;

        beforeAll(async () => {
          client = await mcp.connect(account.t.liveKey, era);
        });

        /** The REST API's 400 message for the same input, which the tool error must start with. */
        const restMessage = async (method: string, path: string, body?: unknown) => {
          const res = await h.request(method, path, { key: account.t.liveKey, body });
          expect(res.status, res.text).toBe(400);
          return res.body.error.message as string;
        };

        it.each([
          ['per_page 0', { per_page: 0 }, '/v1/notes?per_page=0'],
          ['per_page 101', { per_page: 101 }, '/v1/notes?per_page=101'],
          ['page 0', { page: 0 }, '/v1/notes?page=0'],
          ['from that is no date', { from: 'last tuesday' }, '/v1/notes?from=last%20tuesday'],
          ['to on a day that does not exist', { to: '2026-02-30' }, '/v1/notes?to=2026-02-30'],
        ])('list_notes with %s: the REST message, parameter_invalid', async (_name, args, path) => {
          const text = await callFails(client, 'list_notes', args, 'parameter_invalid');
          expect(text.startsWith(await restMessage('GET', path))).toBe(true);
          expect(text).toContain(`Correct '${Object.keys(args)[0]}'`);
        });

        it.each([
          ['an empty title', { title: '   ' }],
          ['a title with a newline', { title: 'Two\nlines' }],
          ['26 distinct tags', { tags: Array.from({ length: 26 }, (_, i) => `tag${i}`) }],
          ['a tag of 51 characters', { tags: ['x'.repeat(51)] }],
          ['a tag that is no string', { tags: [42] }],
        ])('update_note with %s: the REST message', async (_name, args) => {
          const text = await callFails(
            client,
            'update_note',
            { note_id: account.noteId, ...args },
            'parameter_invalid',
          );
          expect(text.startsWith(await restMessage('PATCH', `/v1/notes/${account.noteId}`, args))).toBe(true);
        });

        it.each([
          ['a due date that does not exist', { due: '2026-02-30' }],
          ['an unknown status', { status: 'done' }],
          ['empty text', { text: ' ' }],
        ])('update_action_item with %s: the REST message', async (_name, args) => {
          const text = await callFails(
            client,
            'update_action_item',
            { action_item_id: account.itemId, ...args },
            'parameter_invalid',
          );
          expect(
            text.startsWith(await restMessage('PATCH', `/v1/action-items/${account.itemId}`, args)),
          ).toBe(true);
        });

        it.each([
          ['an empty query', { query: '   ' }],
          ['a query of 1001 characters', { query: 'x'.repeat(1001) }],
          ['limit 51', { query: 'budget', limit: 51 }],
          ['limit 2.5', { query: 'budget', limit: 2.5 }],
          ['min_relevance 2', { query: 'budget', min_relevance: 2 }],
          ['a from that is no date', { query: 'budget', from: 'soon' }],
        ])('search_notes with %s: the REST message', async (_name, args) => {
          const text = await callFails(client, 'search_notes', args, 'parameter_invalid');
          expect(text.startsWith(await restMessage('POST', '/v1/search', args))).toBe(true);
        });

        it('an update without any change says which arguments to give', async () => {
          expect(
            await callFails(client, 'update_note', { note_id: account.noteId }, 'parameter_invalid'),
          ).toMatch(/^Invalid arguments: give at least one of title, tags\./);
          expect(
            await callFails(
              client,
              'update_action_item',
              { action_item_id: account.itemId },
              'parameter_invalid',
            ),
          ).toMatch(/^Invalid arguments: give at least one of status, text, due, assignee\./);
        });

        it('a missing id is parameter_missing; a mistyped parameter name lists the valid ones', async () => {
          expect(await callFails(client, 'get_note', {}, 'parameter_missing')).toMatch(
            /^Missing required parameter 'note_id'\./,
          );
          const text = await callFails(client, 'get_note', { noteId: account.noteId }, 'parameter_unknown');
          expect(text).toMatch(/Unknown argument .noteId./);
          expect(text).toContain('get_note accepts only: note_id, include_transcript');
          expect(
            await callFails(client, 'list_action_items', { status: 'open' }, 'parameter_invalid'),
          ).toMatch(/^Invalid 'status': must be one of pending, completed, all\./);
          expect(await callFails(client, 'list_notes', { per_page: 'ten' }, 'parameter_invalid')).toMatch(
            /^Invalid 'per_page': must be an integer between 1 and 100\./,
          );
        });

        it('unknown ids are resource_not_found with where to find valid ones', async () => {
          for (const [tool, args] of [
            ['get_note', { note_id: 'note_000000000000000000000000' }],
            ['get_transcript', { note_id: 'note_000000000000000000000000' }],
            ['list_highlights', { note_id: 'note_000000000000000000000000' }],
            ['update_note', { note_id: 'note_000000000000000000000000', title: 'x' }],
          ] as const) {
            const text = await callFails(client, tool, args, 'resource_not_found');
            expect(text).toMatch(/^No note with id 'note_000000000000000000000000' exists\./);
            expect(text).toMatch(/list_notes or search_notes/);
          }
          const text = await callFails(
            client,
            'update_action_item',
            { action_item_id: 'ai_000000000000000000000000', status: 'completed' },
            'resource_not_found',
          );
          expect(text).toMatch(/^No action item with id 'ai_000000000000000000000000' exists\./);
          expect(text).toContain('list_action_items');
        });

        it('get_transcript refuses a cursor it did not issue, or one of another note', async () => {
          expect(
            await callFails(
              client,
              'get_transcript',
              { note_id: account.noteId, cursor: 'page-2' },
              'parameter_invalid',
            ),
          ).toMatch(/^Invalid 'cursor': it is not a cursor returned by get_transcript\. Pass next_cursor/);
          const other = encodeTranscriptCursor('note_111111111111111111111111', 2);
          expect(
            await callFails(
              client,
              'get_transcript',
              { note_id: account.noteId, cursor: other },
              'parameter_invalid',
            ),
          ).toMatch(/^Invalid 'cursor': it belongs to another note\./);
          expect(
            await callFails(
              client,
              'get_transcript',
              { note_id: account.noteId, max_segments: 501 },
              'parameter_invalid',
            ),
          ).toMatch(/^Invalid 'max_segments': must be an integer between 1 and 500\./);
        });

        it('an unknown tool is a protocol error, not a crash; the connection keeps working', async () => {
          await expect(client.callTool({ name: 'delete_everything', arguments: {} })).rejects.toThrow(
            /delete_everything/,
          );
          expect((await client.callTool({ name: 'list_notes', arguments: {} })).isError).toBeFalsy();
        });

        it('reading a note resource that does not exist is a resource-not-found error naming the id', async () => {
          await expect(client.readResource({ uri: 'note://note_000000000000000000000000' })).rejects.toThrow(
            /note_000000000000000000000000/,
          );
        });
      });
    }
  });
}

describe('toolFailure', () => {
  const caller = {
    actor: { accountId: 'acct_x', mode: 'live', scopes: new Set(), keyId: 'key_x' } as Actor,
    requestId: 'req_0123456789abcdefghijklmn',
    log: pino({ level: 'silent' }),
  };
  const tool = MCP_TOOLS.find((t) => t.name === 'list_notes')!;

  it('answers an unexpected error with the request id only: no message, SQL, path or stack', () => {
    const err = new Error(
      'SQLITE_ERROR: no such table: notes at SELECT * FROM notes (/work/main/src/db/x.ts:12)',
    );
    const result = toolFailure(tool, err, caller);
    expect(result.isError).toBe(true);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain('req_0123456789abcdefghijklmn');
    expect(text).toContain('(error code: internal_error)');
    expect(text).not.toContain('SQLITE');
    expectNoLeak(text);
  });

  it('keeps an AppError message and adds the next step for its code', () => {
    const result = toolFailure(tool, new AppError('unavailable', 'The database is not reachable.'), caller);
    expect((result.content[0] as { text: string }).text).toBe(
      'The database is not reachable.\nNext step: The service is temporarily unavailable; try again in a few ' +
        'seconds.\n(error code: unavailable)',
    );
  });
});
