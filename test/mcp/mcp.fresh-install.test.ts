import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, spawnServer } from '../cli/cli-process.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/dialects.ts';
import { ERAS, MODERN_VERSION } from './mcp-helpers.ts';

const KEY_LINE = /(live|test) key: (svc_sk_(?:live|test)_[0-9A-Za-z]{32})/g;

/**
 * Issue 6, "done when": on a fresh install (`npm start` on an empty data directory), the SDK client configured
 * exactly like the spec's server map entry (`url` + `Authorization` header, nothing else) lists the tools and
 * uses them, with the keys the first start prints.
 */
for (const dialect of DIALECTS) {
  describe(`MCP on a fresh install (${dialect})`, () => {
    let dataDir: string;
    let pgDatabase: TestDatabase | undefined;
    let server: ServerProcess;
    let keys: Record<string, string>;

    beforeAll(async () => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-mcp-fresh-'));
      const settings: Record<string, string> = { DATA_DIR: dataDir };
      if (dialect === 'postgres') {
        pgDatabase = await createTestDatabase('postgres');
        settings.DATABASE_URL = (pgDatabase.database as { url: string }).url;
      }
      server = await spawnServer(['--import', 'tsx', 'src/main.ts'], settings);
      const deadline = Date.now() + 10_000;
      do {
        keys = Object.fromEntries([...server.stdout().matchAll(KEY_LINE)].map((m) => [m[1]!, m[2]!]));
        if (keys.live && keys.test) break;
        await new Promise((r) => setTimeout(r, 50));
      } while (Date.now() < deadline);
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
      await pgDatabase?.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    /** The server map entry of the spec: `{ "url": "<base>/mcp", "headers": { "Authorization": "Bearer …" } }`. */
    const connect = async (
      entry: { url: string; headers: Record<string, string> },
      era: (typeof ERAS)[number],
    ) => {
      const client = new Client(
        { name: 'fresh-install', version: '1.0.0' },
        era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_VERSION } } } : {},
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } }),
      );
      return client;
    };

    it.each(ERAS)('the printed keys work with the SDK client (%s era)', async (era) => {
      expect(keys.live).toMatch(/^svc_sk_live_/);
      expect(keys.test).toMatch(/^svc_sk_test_/);

      const test = await connect(
        { url: `${server.url}/mcp`, headers: { Authorization: `Bearer ${keys.test}` } },
        era,
      );
      try {
        const { tools } = await test.listTools();
        expect(tools.map((t) => t.name)).toEqual(
          expect.arrayContaining(['list_notes', 'get_note', 'get_transcript', 'list_action_items']),
        );
        const notes = (await test.callTool({ name: 'list_notes', arguments: { per_page: 5 } })) as any;
        expect(notes.isError).toBeFalsy();
        expect(notes.structuredContent.meta.total).toBeGreaterThanOrEqual(20);
        const transcript = (await test.callTool({
          name: 'get_transcript',
          arguments: { note_id: notes.structuredContent.data[0].id, max_segments: 5 },
        })) as any;
        expect(transcript.isError).toBeFalsy();
        expect(transcript.structuredContent.segments[0]).toMatchObject({
          speaker_name: expect.any(String),
          start_ms: expect.any(Number),
          text: expect.any(String),
        });
        const pending = (await test.callTool({
          name: 'list_action_items',
          arguments: { status: 'pending' },
        })) as any;
        expect(pending.structuredContent.data.length).toBeGreaterThan(0);
      } finally {
        await test.close();
      }

      const live = await connect(
        { url: `${server.url}/mcp`, headers: { Authorization: `Bearer ${keys.live}` } },
        era,
      );
      try {
        const notes = (await live.callTool({ name: 'list_notes', arguments: {} })) as any;
        expect(notes.structuredContent).toEqual({ data: [], meta: { page: 1, per_page: 20, total: 0 } });
      } finally {
        await live.close();
      }
    });
  });
}
