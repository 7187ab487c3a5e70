import type { Client } from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { BUDGET_MEETING, createProcessedNote, useProcessedAccount } from './mcp-fixtures.ts';
import { callOk, ERAS, useMcpEndpoint } from './mcp-helpers.ts';

/**
 * Every tool over real HTTP with the SDK client, in both protocol eras, against the REST API's answers for the
 * same question: the tools call the same services, so the JSON must be the same.
 */
for (const dialect of DIALECTS) {
  describe(`MCP tools (${dialect})`, () => {
    const h = useHarness(dialect);
    const mcp = useMcpEndpoint(h);

    for (const era of ERAS) {
      describe(`${era} era`, () => {
        const account = useProcessedAccount(h);
        let client: Client;
        let testClient: Client;

        beforeAll(async () => {
          client = await mcp.connect(account.t.liveKey, era);
          testClient = await mcp.connect(account.t.testKey, era);
        });

        const rest = async (method: string, path: string, body?: unknown, key = account.t.liveKey) => {
          const res = await h.request(method, path, { key, body });
          expect(res.status, res.text.slice(0, 300)).toBe(200);
          return res.body;
        };

        it('search_notes returns what POST /v1/search returns, semantic matches included', async () => {
          const semantic = await callOk(client, 'search_notes', { query: 'spending went over plan' });
          expect(semantic).toEqual(await rest('POST', '/v1/search', { query: 'spending went over plan' }));
          const hit = semantic.results.find((r: { note_id: string }) => r.note_id === account.noteId);
          expect(hit).toMatchObject({ title: BUDGET_MEETING.title, relevance: expect.any(Number) });
          expect(hit.relevance).toBeGreaterThanOrEqual(0.5);

          const args = { query: 'security review', limit: 3, min_relevance: 0.2, from: '2026-01-01' };
          const filtered = await callOk(testClient, 'search_notes', args);
          expect(filtered).toEqual(await rest('POST', '/v1/search', args, account.t.testKey));
          expect(filtered.results.length).toBeGreaterThan(0);
          expect(filtered.results.length).toBeLessThanOrEqual(3);
          const tagged = await callOk(client, 'search_notes', { query: 'budget', tag: 'FINANCE' });
          expect(tagged).toEqual(await rest('POST', '/v1/search', { query: 'budget', tag: 'FINANCE' }));
          expect(tagged.results.map((r: { note_id: string }) => r.note_id)).toContain(account.noteId);
        });

        it('list_notes returns the page GET /v1/notes returns, filters and paging included', async () => {
          expect(await callOk(testClient, 'list_notes', {})).toEqual(
            await rest('GET', '/v1/notes', undefined, account.t.testKey),
          );
          const args = { per_page: 5, page: 2 };
          const page2 = await callOk(testClient, 'list_notes', args);
          expect(page2).toEqual(
            await rest('GET', '/v1/notes?per_page=5&page=2', undefined, account.t.testKey),
          );
          expect(page2.data).toHaveLength(5);
          expect(page2.meta).toMatchObject({ page: 2, per_page: 5 });

          const filtered = await callOk(client, 'list_notes', {
            tag: 'planning',
            from: '2026-09-14',
            to: '2026-09-14',
            q: 'sponsorship',
          });
          expect(filtered).toEqual(
            await rest('GET', '/v1/notes?tag=planning&from=2026-09-14&to=2026-09-14&q=sponsorship'),
          );
          expect(filtered.data.map((n: { id: string }) => n.id)).toContain(account.noteId);
          const outside = await callOk(client, 'list_notes', { from: '2026-09-15' });
          expect(outside.data.map((n: { id: string }) => n.id)).not.toContain(account.noteId);
        });

        it('get_note returns GET /v1/notes/:id without the transcript, or with it when asked', async () => {
          const full = await rest('GET', `/v1/notes/${account.noteId}`);
          const { transcript, ...withoutTranscript } = full;
          expect(transcript).toContain('Speaker 1: Thanks for joining');
          expect(await callOk(client, 'get_note', { note_id: account.noteId })).toEqual(withoutTranscript);
          expect(
            await callOk(client, 'get_note', { note_id: account.noteId, include_transcript: true }),
          ).toEqual(full);
          expect(
            await callOk(client, 'get_note', { note_id: account.noteId, include_transcript: false }),
          ).not.toHaveProperty('transcript');
          expect(withoutTranscript.speakers).toEqual(BUDGET_MEETING.speakers);
          expect(withoutTranscript.action_items.length).toBeGreaterThan(0);
        });

        it('get_transcript pages through every segment with speaker names and start_ms', async () => {
          const { segments, speakers } = await rest('GET', `/v1/notes/${account.noteId}?include=segments`);
          const names = new Map(speakers.map((s: { label: string; name: string }) => [s.label, s.name]));
          const expected = segments.map(
            (s: { speaker: string; start_ms: number; end_ms: number; text: string }) => ({
              speaker_name: names.get(s.speaker),
              speaker_label: s.speaker,
              start_ms: s.start_ms,
              end_ms: s.end_ms,
              text: s.text,
            }),
          );
          const pages: any[] = [];
          let cursor: string | undefined;
          do {
            const page = await callOk(client, 'get_transcript', {
              note_id: account.noteId,
              max_segments: 3,
              ...(cursor ? { cursor } : {}),
            });
            pages.push(page);
            cursor = page.next_cursor;
          } while (cursor && pages.length < 10);
          expect(pages.map((p) => p.segments.length)).toEqual([3, 3, 1]);
          expect(pages.flatMap((p) => p.segments)).toEqual(expected);
          expect(pages.at(-1)).not.toHaveProperty('next_cursor');
          for (const page of pages) {
            expect(page).toMatchObject({
              note_id: account.noteId,
              title: BUDGET_MEETING.title,
              status: 'ready',
              total_segments: BUDGET_MEETING.segments.length,
            });
          }
          expect(expected[0]).toMatchObject({ speaker_name: 'Maya Chen', start_ms: 0 });

          const whole = await callOk(client, 'get_transcript', { note_id: account.noteId });
          expect(whole.segments).toEqual(expected);
          expect(whole).not.toHaveProperty('next_cursor');
        });

        it('get_transcript pages a long seeded meeting of the test data space', async () => {
          const { data } = await rest('GET', '/v1/notes?per_page=1', undefined, account.t.testKey);
          const id = data[0].id;
          const { segments } = await rest(
            'GET',
            `/v1/notes/${id}?include=segments`,
            undefined,
            account.t.testKey,
          );
          const first = await callOk(testClient, 'get_transcript', { note_id: id, max_segments: 1 });
          expect(first.total_segments).toBe(segments.length);
          expect(first.segments[0]).toMatchObject({ start_ms: segments[0].start_ms, text: segments[0].text });
          const second = await callOk(testClient, 'get_transcript', {
            note_id: id,
            max_segments: 1,
            cursor: first.next_cursor,
          });
          expect(second.segments[0]).toMatchObject({
            start_ms: segments[1].start_ms,
            text: segments[1].text,
          });
        });

        it('update_note changes title and tags as PATCH /v1/notes/:id does', async () => {
          const id = await createProcessedNote(h, account.t.liveKey, {
            ...BUDGET_MEETING,
            title: 'Draft title',
          });
          const updated = await callOk(client, 'update_note', {
            note_id: id,
            title: '  Budget review, September  ',
            tags: ['finance', 'FINANCE', 'q3'],
          });
          expect(updated).toEqual({ id, title: 'Budget review, September', tags: ['finance', 'q3'] });
          expect(await rest('GET', `/v1/notes/${id}`)).toMatchObject(updated);
          expect(await callOk(client, 'update_note', { note_id: id, tags: [] })).toEqual({
            ...updated,
            tags: [],
          });
        });

        it('list_highlights returns the highlights of the note detail', async () => {
          const { highlights } = await rest('GET', `/v1/notes/${account.noteId}`);
          expect(highlights.length).toBeGreaterThan(0);
          expect(await callOk(client, 'list_highlights', { note_id: account.noteId })).toEqual({
            note_id: account.noteId,
            data: highlights,
          });
        });

        it('list_action_items returns the page GET /v1/action-items returns, with its filters', async () => {
          expect(await callOk(testClient, 'list_action_items', {})).toEqual(
            await rest('GET', '/v1/action-items', undefined, account.t.testKey),
          );
          for (const status of ['pending', 'completed'] as const) {
            const page = await callOk(testClient, 'list_action_items', { status, per_page: 50 });
            expect(page).toEqual(
              await rest(
                'GET',
                `/v1/action-items?status=${status}&per_page=50`,
                undefined,
                account.t.testKey,
              ),
            );
            expect(page.data.length).toBeGreaterThan(0);
            expect(page.data.every((i: { status: string }) => i.status === status)).toBe(true);
          }
          const ofNote = await callOk(client, 'list_action_items', { note_id: account.noteId });
          expect(ofNote).toEqual(await rest('GET', `/v1/action-items?note_id=${account.noteId}`));
          expect(ofNote.data.length).toBeGreaterThan(0);
          const assignee = ofNote.data.find((i: { assignee?: string }) => i.assignee)?.assignee as string;
          expect(assignee).toBeDefined();
          const byAssignee = await callOk(client, 'list_action_items', { assignee: assignee.toUpperCase() });
          expect(byAssignee).toEqual(
            await rest('GET', `/v1/action-items?assignee=${encodeURIComponent(assignee.toUpperCase())}`),
          );
          expect(byAssignee.data.length).toBeGreaterThan(0);
        });

        it('update_action_item completes, reopens, re-words and re-dates an item as PATCH does', async () => {
          const id = await createProcessedNote(h, account.t.liveKey);
          const { data } = await rest('GET', `/v1/action-items?note_id=${id}`);
          const item = data[0];
          const completed = await callOk(client, 'update_action_item', {
            action_item_id: item.id,
            status: 'completed',
            due: '2026-10-02',
            text: 'Send the revised Q3 forecast to finance',
          });
          expect(completed).toMatchObject({
            id: item.id,
            status: 'completed',
            due: '2026-10-02',
            text: 'Send the revised Q3 forecast to finance',
            note_id: id,
            completed_at: expect.stringMatching(/Z$/),
          });
          const listed = await rest('GET', `/v1/action-items?note_id=${id}&status=completed`);
          expect(listed.data).toContainEqual(completed);

          const reopened = await callOk(client, 'update_action_item', {
            action_item_id: item.id,
            status: 'pending',
            due: null,
            assignee: null,
          });
          expect(reopened).toEqual(
            (await rest('GET', `/v1/action-items?note_id=${id}`)).data.find(
              (i: { id: string }) => i.id === item.id,
            ),
          );
          expect(reopened).not.toHaveProperty('completed_at');
          expect(reopened).not.toHaveProperty('due');
          expect(reopened).not.toHaveProperty('assignee');
        });

        it('list_webhooks returns what GET /v1/webhooks returns (never the secret)', async () => {
          const tenant = await h.tenant();
          const created = await h.request('POST', '/v1/webhooks', {
            key: tenant.liveKey,
            body: {
              url: 'https://hooks.example.com/minutes',
              events: ['note.processed'],
              secret: 'a-webhook-secret-of-32-characters',
            },
          });
          expect(created.status, created.text).toBe(201);
          const own = await mcp.connect(tenant.liveKey, era);
          const listed = await callOk(own, 'list_webhooks', {});
          expect(listed).toEqual(await rest('GET', '/v1/webhooks', undefined, tenant.liveKey));
          expect(listed.data).toEqual([
            {
              id: created.body.id,
              url: 'https://hooks.example.com/minutes',
              events: ['note.processed'],
              active: true,
            },
          ]);
          expect(JSON.stringify(listed)).not.toContain('a-webhook-secret');
        });

        it('resource note://{note_id} reads the note detail; resources/list offers the newest notes', async () => {
          const read = await client.readResource({ uri: `note://${account.noteId}` });
          expect(read.contents).toHaveLength(1);
          expect(read.contents[0]).toMatchObject({
            uri: `note://${account.noteId}`,
            mimeType: 'application/json',
          });
          expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(
            await rest('GET', `/v1/notes/${account.noteId}`),
          );
          const { resources } = await testClient.listResources();
          const { data } = await rest('GET', '/v1/notes', undefined, account.t.testKey);
          expect(resources.map((r) => r.uri)).toEqual(data.map((n: { id: string }) => `note://${n.id}`));
          expect(resources[0]!.name).toBe(data[0].title);
          const { resourceTemplates } = await client.listResourceTemplates();
          expect(resourceTemplates.map((r) => r.uriTemplate)).toEqual(['note://{note_id}']);
        });

        it('prompt summarize_meetings asks for the tools over the requested date range', async () => {
          const { prompts } = await client.listPrompts();
          expect(prompts.map((p) => p.name)).toEqual(['summarize_meetings']);
          const today = new Date().toISOString().slice(0, 10);
          const threeDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
          const prompt = await client.getPrompt({ name: 'summarize_meetings', arguments: { days: '3' } });
          const text = (prompt.messages[0]!.content as { text: string }).text;
          expect(text).toContain(`from="${threeDaysAgo}", to="${today}"`);
          expect(text).toMatch(/list_notes[\s\S]*get_note[\s\S]*list_action_items/);
          const week = await client.getPrompt({ name: 'summarize_meetings', arguments: {} });
          expect((week.messages[0]!.content as { text: string }).text).toContain(
            new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10),
          );
          await expect(
            client.getPrompt({ name: 'summarize_meetings', arguments: { days: '400' } }),
          ).rejects.toThrow(/1–90/);
        });
      });
    }
  });
}
