import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness.ts';
import { callTool, useMcpEndpoint } from '../mcp/mcp-helpers.ts';

/**
 * Another writer holding SQLite's write lock past busy_timeout (another process, a long import): a request that
 * must write is answered 503 `unavailable` with Retry-After, not 500, and changes nothing; reads go on meanwhile.
 */
describe('a database too busy to write (sqlite)', () => {
  const h = useHarness('sqlite');
  const mcp = useMcpEndpoint(h);

  it('answers 503 unavailable with Retry-After, reads still answer, and the write succeeds once the lock is gone', async () => {
    const t = await h.tenant();
    const { file } = h.db.database as { file: string };
    const other = new SQLite(file);
    try {
      other.exec('BEGIN IMMEDIATE');
      const refused = await h.request('POST', '/v1/notes', {
        key: t.liveKey,
        body: { transcript: 'Ana: This note waits for the lock.' },
      });
      expect(refused.status).toBe(503);
      expect(refused.body.error).toMatchObject({ type: 'api_error', code: 'unavailable' });
      expect(refused.headers.get('retry-after')).toBe('1');
      // Reads are not held up by the lock (WAL, read-only connections).
      const listed = await h.request('GET', '/v1/notes', { key: t.liveKey });
      expect(listed.status).toBe(200);
      expect(listed.body.meta.total).toBe(0);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
    }
    const created = await h.request('POST', '/v1/notes', {
      key: t.liveKey,
      body: { transcript: 'Ana: This note waits for the lock.' },
    });
    expect(created.status).toBe(202);
  }, 60_000);

  it('an MCP tool that must write says unavailable (a tool error naming the code), not internal_error', async () => {
    const t = await h.tenant();
    const created = await h.request('POST', '/v1/notes', {
      key: t.liveKey,
      body: { transcript: 'Ana: Rename me later.' },
    });
    expect(created.status).toBe(202);
    const client = await mcp.connect(t.liveKey);
    const { file } = h.db.database as { file: string };
    const other = new SQLite(file);
    try {
      other.exec('BEGIN IMMEDIATE');
      const result = await callTool(client, 'update_note', { note_id: created.body.id, title: 'Renamed' });
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toContain('(error code: unavailable)');
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
    }
  }, 60_000);
});
