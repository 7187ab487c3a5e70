import { Client, LATEST_PROTOCOL_VERSION, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/features/api-keys/api-keys.service.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { ERAS, initialize, MODERN_VERSION, rpc, useMcpEndpoint } from './mcp-helpers.ts';

const TOOL_NAMES = [
  'search_notes',
  'list_notes',
  'get_note',
  'get_transcript',
  'update_note',
  'rename_speakers',
  'get_note_export',
  'list_highlights',
  'list_action_items',
  'update_action_item',
  'list_webhooks',
];

/** The per-request envelope of the current revision, as the SDK client sends it. */
const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-test-client', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

for (const dialect of DIALECTS) {
  describe(`MCP transport at /mcp (${dialect})`, () => {
    const h = useHarness(dialect, {
      MCP_ALLOWED_ORIGINS: 'https://notes.example.com, http://localhost:6274',
    });
    const mcp = useMcpEndpoint(h);

    describe('both protocol eras', () => {
      it.each(ERAS)(
        'the SDK client configured with url + Authorization header connects and lists tools (%s)',
        async (era) => {
          const t = await h.tenant();
          const client = await mcp.connect(t.liveKey, era);
          expect(client.getNegotiatedProtocolVersion()).toBe(
            era === 'modern' ? MODERN_VERSION : LATEST_PROTOCOL_VERSION,
          );
          expect(client.getServerVersion()?.name).toBe('minutes');
          expect(client.getInstructions()).toMatch(/search_notes|list_notes/);
          const { tools } = await client.listTools();
          expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(TOOL_NAMES));
        },
      );

      it('a client in auto negotiation mode lands on the current revision', async () => {
        const t = await h.tenant();
        const client = new Client(
          { name: 'auto', version: '1.0.0' },
          { versionNegotiation: { mode: 'auto' } },
        );
        await client.connect(
          new StreamableHTTPClientTransport(mcp.url, {
            requestInit: { headers: { Authorization: `Bearer ${t.testKey}` } },
          }),
        );
        try {
          expect(client.getProtocolEra()).toBe('modern');
          expect((await client.listTools()).tools.length).toBeGreaterThanOrEqual(TOOL_NAMES.length);
        } finally {
          await client.close();
        }
      });

      it.each(['2025-03-26', '2025-06-18', LATEST_PROTOCOL_VERSION])(
        'answers a raw 2025-era initialize with protocolVersion %s, then serves requests without a session',
        async (version) => {
          const t = await h.tenant();
          const init = await mcp.raw('POST', { key: t.liveKey, body: initialize(version) });
          expect(init.status, init.text).toBe(200);
          expect(init.headers.get('mcp-session-id')).toBeNull();
          expect(init.body.result).toMatchObject({
            protocolVersion: version,
            serverInfo: { name: 'minutes' },
            capabilities: { tools: {}, resources: {}, prompts: {} },
          });
          expect(init.body.result.instructions).toEqual(expect.any(String));

          const initialized = await mcp.raw('POST', {
            key: t.liveKey,
            body: { jsonrpc: '2.0', method: 'notifications/initialized' },
            headers: { 'mcp-protocol-version': version },
          });
          expect(initialized.status).toBe(202);

          const list = await mcp.raw('POST', {
            key: t.liveKey,
            body: rpc('tools/list', {}, 2),
            headers: { 'mcp-protocol-version': version },
          });
          expect(list.status).toBe(200);
          expect(list.body.result.tools.map((t: { name: string }) => t.name)).toEqual(
            expect.arrayContaining(TOOL_NAMES),
          );
        },
      );

      it('answers the current revision with no handshake: server/discover and a tools/call', async () => {
        const t = await h.tenant();
        const headers = { 'mcp-protocol-version': MODERN_VERSION };
        const discover = await mcp.raw('POST', {
          key: t.testKey,
          body: rpc('server/discover', { _meta: envelope }),
          headers: { ...headers, 'mcp-method': 'server/discover' },
        });
        expect(discover.status, discover.text).toBe(200);
        expect(discover.body.result.supportedVersions).toContain(MODERN_VERSION);
        expect(discover.body.result.capabilities.tools).toBeDefined();

        const call = await mcp.raw('POST', {
          key: t.testKey,
          body: rpc('tools/call', { name: 'list_notes', arguments: { per_page: 3 }, _meta: envelope }, 7),
          headers: { ...headers, 'mcp-method': 'tools/call', 'mcp-name': 'list_notes' },
        });
        expect(call.status, call.text).toBe(200);
        expect(call.body.id).toBe(7);
        expect(call.body.result.isError).toBeUndefined();
        expect(call.body.result.structuredContent.data).toHaveLength(3);
        expect(call.body.result.structuredContent.meta.total).toBeGreaterThanOrEqual(20);
      });
    });

    describe('malformed requests get the MCP transport errors', () => {
      it.each([
        ['a 2025-era request', { 'mcp-protocol-version': LATEST_PROTOCOL_VERSION }, rpc('tools/list')],
        [
          'a current-revision request',
          { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' },
          rpc('tools/list', { _meta: envelope }),
        ],
      ])('%s that is not JSON by Content-Type → 415', async (_name, headers, body) => {
        const t = await h.tenant();
        const res = await mcp.raw('POST', {
          key: t.liveKey,
          body,
          headers: { ...headers, 'content-type': 'text/plain' },
        });
        expect(res.status).toBe(415);
      });

      it('an unsupported revision is refused naming the supported one', async () => {
        const t = await h.tenant();
        const res = await mcp.raw('POST', {
          key: t.liveKey,
          body: rpc('tools/list', {
            _meta: { ...envelope, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
          }),
          headers: { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
        });
        expect(res.status).toBe(400);
        expect(res.body.error.data.supported).toContain(MODERN_VERSION);
      });

      it('invalid JSON is a JSON-RPC parse error', async () => {
        const t = await h.tenant();
        const res = await fetch(mcp.url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${t.liveKey}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: '{"jsonrpc": "2.0", "id": 1,',
        });
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32700);
      });
    });

    describe('authentication: 401 with the REST error body and WWW-Authenticate: Bearer', () => {
      it.each([
        ['no Authorization header', async () => undefined, 'api_key_missing'],
        ['a malformed key', async () => 'not-a-key', 'api_key_invalid'],
        ['an unknown key', async () => `svc_sk_live_${'x'.repeat(40)}`, 'api_key_invalid'],
        ['a revoked key', async (t: any) => t.revokedKey(), 'api_key_revoked'],
        ['an expired key', async (t: any) => t.expiredKey('test'), 'api_key_expired'],
      ])('%s', async (_name, makeKey, code) => {
        const t = await h.tenant();
        const key = await makeKey(t);
        const res = await mcp.raw('POST', {
          body: initialize(LATEST_PROTOCOL_VERSION),
          headers: key ? { authorization: `Bearer ${key}` } : {},
        });
        expectApiError(res, 401, code);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      });

      it('the SDK client cannot connect without a valid key', async () => {
        for (const era of ERAS) {
          await expect(mcp.connect(`svc_sk_test_${'y'.repeat(40)}`, era)).rejects.toThrow();
        }
      });

      it('each request is authenticated: a key revoked after connecting stops working at once', async () => {
        const t = await h.tenant();
        const key = await createApiKey(h.deps, { accountId: t.accountId, mode: 'live' });
        const client = await mcp.connect(key.key, 'modern');
        expect((await client.callTool({ name: 'list_notes', arguments: {} })).isError).toBeFalsy();
        await revokeApiKey(h.deps, key.id);
        await expect(client.callTool({ name: 'list_notes', arguments: {} })).rejects.toThrow(
          /401|revoked|nauthori/i,
        );
      });
    });

    describe('stateless: GET and DELETE answer 405', () => {
      it.each(['GET', 'DELETE'])('%s /mcp → 405 with Allow: POST', async (method) => {
        const t = await h.tenant();
        const res = await mcp.raw(method, { key: t.liveKey, headers: { accept: 'text/event-stream' } });
        expectApiError(res, 405, 'method_not_allowed');
        expect(res.headers.get('allow')).toBe('POST');
      });

      it('authentication comes first, as for REST', async () => {
        const res = await mcp.raw('GET', { headers: { accept: 'text/event-stream' } });
        expectApiError(res, 401, 'api_key_missing');
      });
    });

    describe('Origin', () => {
      it('refuses an Origin that is not configured with 403, right after authentication', async () => {
        const t = await h.tenant();
        for (const origin of ['https://evil.example', 'https://notes.example.com.evil.example', 'null']) {
          const res = await mcp.raw('POST', {
            key: t.liveKey,
            body: initialize(LATEST_PROTOCOL_VERSION),
            headers: { origin },
          });
          expect(res.status, origin).toBe(403);
          expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'origin_not_allowed' });
          expect(res.headers.get('access-control-allow-origin')).toBeNull();
        }
        // Authentication comes first (API.md: auth 401 → … → 403): without a valid key, a 401.
        const anonymous = await mcp.raw('POST', {
          body: initialize(LATEST_PROTOCOL_VERSION),
          headers: { origin: 'https://evil.example' },
        });
        expect(anonymous.status).toBe(401);
        expect(anonymous.body.error).toMatchObject({ code: 'api_key_missing' });
      });

      it('serves a configured Origin, with CORS headers and an unauthenticated preflight', async () => {
        const t = await h.tenant();
        const res = await mcp.raw('POST', {
          key: t.liveKey,
          body: initialize(LATEST_PROTOCOL_VERSION),
          headers: { origin: 'https://notes.example.com' },
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('access-control-allow-origin')).toBe('https://notes.example.com');
        expect(res.headers.get('access-control-expose-headers')).toMatch(/WWW-Authenticate/i);

        const preflight = await fetch(mcp.url, {
          method: 'OPTIONS',
          headers: {
            origin: 'http://localhost:6274',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
          },
        });
        expect(preflight.status).toBe(204);
        expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
        expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
        expect(preflight.headers.get('access-control-allow-methods')).toMatch(/POST/);

        // A preflight from an origin that is not configured gets no CORS grant (401: it carries no key).
        const refused = await fetch(mcp.url, {
          method: 'OPTIONS',
          headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
        });
        expect(refused.status).toBe(401);
        expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      });

      it('requests without Origin (non-browser clients) are served', async () => {
        const t = await h.tenant();
        const res = await mcp.raw('POST', { key: t.liveKey, body: initialize(LATEST_PROTOCOL_VERSION) });
        expect(res.status).toBe(200);
      });
    });

    it('every response carries Request-Id', async () => {
      const t = await h.tenant();
      const res = await mcp.raw('POST', { key: t.liveKey, body: initialize(LATEST_PROTOCOL_VERSION) });
      expect(res.headers.get('request-id')).toMatch(/^req_[0-9A-Za-z]{24}$/);
    });
  });

  describe(`MCP limits (${dialect})`, () => {
    const h = useHarness(dialect, { RATE_LIMIT_PER_MINUTE: '3', MAX_BODY_BYTES: '4096' });
    const mcp = useMcpEndpoint(h);

    it('a body over MAX_BODY_BYTES is refused with 413 before any work', async () => {
      const t = await h.tenant();
      const big = rpc('tools/call', { name: 'list_notes', arguments: { q: 'x'.repeat(5000) } });
      const res = await mcp.raw('POST', { key: t.liveKey, body: big });
      expectApiError(res, 413, 'payload_too_large');
    });

    it('counts MCP requests against the key like REST requests: 429 with Retry-After beyond the limit', async () => {
      const t = await h.tenant();
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof mcp.raw>> | undefined;
      for (let i = 0; i < 4; i++) {
        last = await mcp.raw('POST', { key: t.liveKey, body: initialize(LATEST_PROTOCOL_VERSION) });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expectApiError(last!, 429, 'rate_limited');
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    });
  });
}
