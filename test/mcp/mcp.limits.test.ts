/**
 * Issue 11, item 4: MCP is bounded like REST. Every JSON-RPC message counts against the key's rate limit (a
 * batch of N counts N), batches hold at most 10 messages and exist only in revision 2025-03-26, tool results have
 * a size ceiling (1 MiB each, 4 MiB per request) with a tool error that says what to do instead, and /mcp answers
 * carry the REST RateLimit headers.
 */
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import type { Harness } from '../helpers/harness.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { callOk, MODERN_VERSION, rpc, useMcpEndpoint } from './mcp-helpers.ts';

const LIMIT = 400;

/** A note whose transcript is about `bytes` long (ordinary sentences), not processed (not needed here). */
async function noteOfSize(h: Harness, key: string, bytes: number): Promise<string> {
  const line = 'Speaker 1: We went through the budget, the hiring plan and the launch dates once more.\n';
  const res = await h.request('POST', '/v1/notes', {
    key,
    body: { title: 'A very long meeting', transcript: line.repeat(Math.ceil(bytes / line.length)) },
  });
  expect(res.status, res.text.slice(0, 300)).toBe(202);
  return res.body.id as string;
}

/** `r` of the RateLimit header: requests left in the window. */
const remaining = (headers: Headers) => Number(/;r=(\d+)/.exec(headers.get('ratelimit') ?? '')?.[1]);

const getNote = (id: number, noteId: string, includeTranscript = false) =>
  rpc(
    'tools/call',
    { name: 'get_note', arguments: { note_id: noteId, include_transcript: includeTranscript } },
    id,
  );

for (const dialect of DIALECTS) {
  describe(`MCP bounded like REST (${dialect})`, () => {
    const h = useHarness(dialect, { RATE_LIMIT_PER_MINUTE: String(LIMIT) });
    const mcp = useMcpEndpoint(h);

    it('a batch of 100 get_note calls is refused (at most 10 messages) and counts 100 against the rate limit', async () => {
      const t = await h.tenant();
      const noteId = await noteOfSize(h, t.liveKey, 1_500_000);
      const first = await mcp.raw('POST', { key: t.liveKey, body: rpc('tools/list', {}, 1) });
      expect(first.status).toBe(200);
      const before = remaining(first.headers);

      const batch = Array.from({ length: 100 }, (_, i) => getNote(i + 1, noteId, true));
      const res = await mcp.raw('POST', { key: t.liveKey, body: batch });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      expect(res.body.error.message).toMatch(/at most 10 messages; this one has 100/);
      // Small: nothing ran.
      expect(res.text.length).toBeLessThan(1000);
      expect(res.headers.get('ratelimit-policy')).toBe(`"per-key";q=${LIMIT};w=60`);
      // Within one window (the header's reset is at most 60 s): the batch cost 100. A window boundary between
      // the two requests resets the count; then only the batch is in the new window.
      const after = remaining(res.headers);
      expect([before - 100, LIMIT - 100]).toContain(after);
    });

    it('a batch is refused for revisions that dropped batches (2025-06-18 on)', async () => {
      const t = await h.tenant();
      const batch = [rpc('tools/list', {}, 1), rpc('tools/list', {}, 2)];
      for (const version of ['2025-06-18', '2025-11-25', MODERN_VERSION]) {
        const res = await mcp.raw('POST', {
          key: t.liveKey,
          body: batch,
          headers: { 'mcp-protocol-version': version },
        });
        expect(res.status, res.text).toBe(400);
        expect(res.body.error.code).toBe(-32600);
      }
      const legacy = await mcp.raw('POST', {
        key: t.liveKey,
        body: batch,
        headers: { 'mcp-protocol-version': '2025-03-26' },
      });
      expect(legacy.status, legacy.text).toBe(200);
      expect(legacy.body).toHaveLength(2);
    });

    it('a batch of 10 get_note of a 1.5 MB note: every call is a result_too_large tool error, the answer stays small', async () => {
      const t = await h.tenant();
      const noteId = await noteOfSize(h, t.liveKey, 1_500_000);
      const batch = Array.from({ length: 10 }, (_, i) => getNote(i + 1, noteId, true));
      const res = await mcp.raw('POST', { key: t.liveKey, body: batch });
      expect(res.status, res.text.slice(0, 500)).toBe(200);
      expect(res.body).toHaveLength(10);
      for (const answer of res.body) {
        expect(answer.result.isError).toBe(true);
        const text = answer.result.content[0].text as string;
        expect(text).toMatch(
          /The result of get_note is 1\.\d MB, over the 1\.0 MB limit of one MCP tool result/,
        );
        expect(text).toMatch(/get_transcript/);
        expect(text).toMatch(/GET \/v1\/notes\/\{note_id\}/);
        expect(text).toContain('(error code: result_too_large)');
      }
      expect(res.text.length).toBeLessThan(20_000);
      // Without the transcript the same note is small.
      const small = await mcp.raw('POST', { key: t.liveKey, body: getNote(1, noteId) });
      expect(small.body.result.isError).toBeUndefined();
      expect(small.body.result.structuredContent.id).toBe(noteId);
    });

    it('the results of one request share a 4 MiB budget: calls beyond it get a tool error', async () => {
      const t = await h.tenant();
      const noteId = await noteOfSize(h, t.liveKey, 900_000);
      const batch = Array.from({ length: 10 }, (_, i) => getNote(i + 1, noteId, true));
      const res = await mcp.raw('POST', { key: t.liveKey, body: batch });
      expect(res.status).toBe(200);
      const answered = res.body.filter((a: any) => !a.result.isError);
      const refused = res.body.filter((a: any) => a.result.isError);
      const size = Buffer.byteLength(answered[0].result.content[0].text);
      expect(size).toBeGreaterThan(500_000);
      expect(answered).toHaveLength(Math.floor((4 * 1024 * 1024) / size));
      expect(refused.length).toBeGreaterThan(0);
      for (const a of refused) expect(a.result.content[0].text).toMatch(/together would exceed 4\.0 MB/);
    });

    it('the note:// resource of a huge note is refused with a message pointing to the tools and REST', async () => {
      const t = await h.tenant();
      const noteId = await noteOfSize(h, t.liveKey, 1_500_000);
      const res = await mcp.raw('POST', {
        key: t.liveKey,
        body: rpc('resources/read', { uri: `note://${noteId}` }),
      });
      expect(res.body.error?.message).toMatch(/over the 1\.0 MB limit of one MCP result/);
      expect(res.body.error?.message).toContain(`GET /v1/notes/${noteId}`);
    });

    it('tool calls carry the REST RateLimit headers and count one each (SDK client, both eras)', async () => {
      const t = await h.tenant();
      const noteId = await noteOfSize(h, t.liveKey, 2_000);
      const seen: string[] = [];
      for (const era of ['legacy', 'modern'] as const) {
        const client = await mcp.connect(t.liveKey, era);
        const note = await callOk(client, 'get_note', { note_id: noteId });
        expect(note.id).toBe(noteId);
      }
      for (let i = 0; i < 2; i++) {
        const res = await mcp.raw('POST', { key: t.liveKey, body: getNote(1, noteId) });
        expect(res.headers.get('ratelimit-policy')).toBe(`"per-key";q=${LIMIT};w=60`);
        seen.push(res.headers.get('ratelimit') ?? '');
      }
      const [a, b] = seen.map((v) => Number(/;r=(\d+)/.exec(v)?.[1]));
      // One call, one request (unless the window turned over in between).
      expect([a! - 1, LIMIT - 1]).toContain(b);
    });
  });

  describe(`MCP batches over the rate limit (${dialect})`, () => {
    const h = useHarness(dialect, { RATE_LIMIT_PER_MINUTE: '8' });
    const mcp = useMcpEndpoint(h);

    it('a batch that takes the key over its limit is a 429 in the house format, with Retry-After', async () => {
      const t = await h.tenant();
      const batch = Array.from({ length: 10 }, (_, i) => rpc('tools/list', {}, i + 1));
      const res = await mcp.raw('POST', { key: t.liveKey, body: batch });
      expectApiError(res, 429, 'rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.headers.get('ratelimit')).toMatch(/;r=0;/);
    });
  });
}
