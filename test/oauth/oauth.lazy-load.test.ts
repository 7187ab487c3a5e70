import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, spawnServer } from '../cli/cli-process.ts';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/dialects.ts';
import { REDIRECT_URI } from './oauth-client.ts';

/**
 * The authorization server's library is loaded when an OAuth endpoint is first used, not when the server starts:
 * a server nobody connects an assistant to never loads it, and its start prints none of its warnings (it warns
 * about every Node.js release it was not written for).
 */
for (const dialect of DIALECTS) {
  describe(`OAuth library loaded on first use, not at start (${dialect})`, () => {
    let dataDir: string;
    let pgDatabase: TestDatabase | undefined;
    let server: ServerProcess;

    beforeAll(async () => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-oauth-lazy-'));
      const settings: Record<string, string> = { DATA_DIR: dataDir };
      if (dialect === 'postgres') {
        pgDatabase = await createTestDatabase('postgres');
        settings.DATABASE_URL = (pgDatabase.database as { url: string }).url;
      }
      server = await spawnServer(['--import', 'tsx', 'src/main.ts'], settings);
    }, 90_000);
    afterAll(async () => {
      await server?.stop();
      await pgDatabase?.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('starting the server, discovery and a 401 from /mcp print nothing of the OAuth library', async () => {
      const metadata = await fetch(`${server.url}/.well-known/oauth-authorization-server`);
      expect(metadata.status).toBe(200);
      const mcp = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(mcp.status).toBe(401);
      expect(mcp.headers.get('www-authenticate')).toContain('resource_metadata=');
      expect(server.stderr()).not.toContain('oidc-provider');
    });

    it('the first OAuth request loads it and is answered', async () => {
      const res = await fetch(`${server.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'First use',
          redirect_uris: [REDIRECT_URI],
          token_endpoint_auth_method: 'none',
        }),
      });
      expect(res.status).toBe(201);
      expect(((await res.json()) as { client_id?: string }).client_id).toEqual(expect.any(String));
    });
  });
}
