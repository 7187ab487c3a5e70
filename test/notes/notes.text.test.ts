import { describe, expect, it } from 'vitest';
import { codePointLength, sliceCodePoints, truncate, wellFormed } from '../../src/lib/text.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { callOk, useMcpEndpoint } from '../mcp/mcp-helpers.ts';

const REPLACEMENT = '\uFFFD';
const hasLoneSurrogate = (s: string) => wellFormed(s) !== s;

describe('cutting text by code points', () => {
  it('never cuts a surrogate pair in two', () => {
    const emoji = '😀'.repeat(100);
    for (let n = 0; n <= 101; n++) {
      const cut = sliceCodePoints(emoji, n);
      expect(hasLoneSurrogate(cut)).toBe(false);
      expect(codePointLength(cut)).toBe(Math.min(n, 100));
    }
    expect(truncate(emoji, 80)).toBe(`${'😀'.repeat(79)}…`);
    expect(truncate('short', 80)).toBe('short');
  });

  it('replaces lone surrogates and keeps pairs', () => {
    expect(wellFormed('a\ud800b\udc00c😀')).toBe(`a${REPLACEMENT}b${REPLACEMENT}c😀`);
    expect(wellFormed('\udc00\ud800')).toBe(REPLACEMENT + REPLACEMENT);
  });
});

for (const dialect of DIALECTS) {
  describe(`text handling (${dialect})`, () => {
    const h = useHarness(dialect);
    const mcp = useMcpEndpoint(h);

    it('cuts a provisional title of emoji by code points, in the answer and in note.created', async () => {
      const t = await h.tenant();
      const word = '🎉'.repeat(10);
      const res = await h.request('POST', '/v1/notes', {
        key: t.liveKey,
        body: { transcript: `Ann: ${Array.from({ length: 12 }, () => word).join(' ')}` },
      });
      expect(res.status).toBe(202);
      const title = res.body.title as string;
      expect(title).not.toContain(REPLACEMENT);
      expect(hasLoneSurrogate(title)).toBe(false);
      expect(title.endsWith('…')).toBe(true);
      expect(codePointLength(title)).toBeLessThanOrEqual(78);
      const event = await h.db.db
        .selectFrom('events')
        .select('payload')
        .where('account_id', '=', t.accountId)
        .where('type', '=', 'note.created')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(event.payload).data.title).toBe(title);
      const stored = await h.request('GET', `/v1/notes/${res.body.id}`, { key: t.liveKey });
      expect(stored.body.title).toBe(title);
    });

    it('stores a lone surrogate as U+FFFD, the same on both databases, through REST and MCP', async () => {
      const t = await h.tenant();
      // Written by hand: JSON allows the escape, a UTF-8 body cannot carry the code unit itself.
      // The second body is over 64 KiB, so it is read in a processing thread: the same rule holds there.
      const long = ' filler'.repeat(12_000);
      let noteId = '';
      for (const padding of ['', long]) {
        const raw = `{"title":"Plan \\ud800 A","transcript":"Ann: hi \\udc00 there${padding}","tags":["x\\ud83d"]}`;
        const res = await h.request('POST', '/v1/notes', {
          key: t.liveKey,
          raw,
          headers: { 'content-type': 'application/json' },
        });
        expect(res.status).toBe(202);
        expect(res.body.title).toBe(`Plan ${REPLACEMENT} A`);
        const got = await h.request('GET', `/v1/notes/${res.body.id}`, { key: t.liveKey });
        expect(got.body.title).toBe(`Plan ${REPLACEMENT} A`);
        expect(got.body.transcript).toContain(`hi ${REPLACEMENT} there`);
        expect(got.body.tags).toEqual([`x${REPLACEMENT}`]);
        noteId = res.body.id;
      }

      const client = await mcp.connect(t.liveKey);
      const updated = await callOk(client, 'update_note', {
        note_id: noteId,
        title: 'Via MCP \udfff end',
      });
      expect(updated.title).toBe(`Via MCP ${REPLACEMENT} end`);
      const after = await h.request('GET', `/v1/notes/${noteId}`, { key: t.liveKey });
      expect(after.body.title).toBe(`Via MCP ${REPLACEMENT} end`);
    });
  });
}
