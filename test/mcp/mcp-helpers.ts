import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Harness } from '../helpers/harness.ts';

/** The two protocol eras /mcp serves: 2025-era `initialize` sessions and the current per-request revision. */
export type Era = 'legacy' | 'modern';
export const ERAS: Era[] = ['legacy', 'modern'];
/** The current revision the SDK client pins for the modern era. */
export const MODERN_VERSION = '2026-07-28';

export interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON; for an SSE answer, the JSON of its first `data:` line. */
  body: any;
}

export interface McpEndpoint {
  url: URL;
  /**
   * An SDK client configured like the spec's server map entry (`url` + `Authorization` header), connected in the
   * given era: the 2025 `initialize` handshake, or pinned to the current revision via `server/discover`.
   */
  connect(key: string, era?: Era): Promise<Client>;
  /** One raw HTTP request to /mcp (JSON-RPC body, MCP Accept header unless overridden). */
  raw(
    method: string,
    options?: { key?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<RawResponse>;
}

/** Serves the harness's app on a real port for the describe block, as MCP clients reach it. */
export function useMcpEndpoint(h: Harness): McpEndpoint {
  const clients: Client[] = [];
  let close: (() => Promise<void>) | undefined;
  const endpoint = { url: new URL('http://127.0.0.1/mcp') } as McpEndpoint;

  beforeAll(async () => {
    const server = serve({ fetch: (req) => h.app.fetch(req), port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    endpoint.url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    close = () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await close?.();
  });

  endpoint.connect = async (key, era = 'legacy') => {
    const client = new Client(
      { name: 'minutes-tests', version: '1.0.0' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_VERSION } } } : {},
    );
    await client.connect(
      new StreamableHTTPClientTransport(endpoint.url, {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    expect(client.getProtocolEra()).toBe(era);
    clients.push(client);
    return client;
  };

  endpoint.raw = async (method, options = {}) => {
    const headers: Record<string, string> = {
      accept: 'application/json, text/event-stream',
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...options.headers,
    };
    const res = await fetch(endpoint.url, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await res.text();
    let body: unknown = text;
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('json') && text) body = JSON.parse(text);
    else if (type.includes('text/event-stream')) {
      const data = text.split('\n').find((line) => line.startsWith('data:'));
      body = data ? JSON.parse(data.slice('data:'.length)) : undefined;
    }
    return { status: res.status, headers: res.headers, text, body };
  };
  return endpoint;
}

/** Calls a tool and returns its result, checking the invariants every result has. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolResult> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  expect(result.content.length, JSON.stringify(result)).toBeGreaterThan(0);
  expect(result.content[0]!.type).toBe('text');
  return result;
}

/** A successful result: `structuredContent` present, and the text content is exactly its JSON. */
export async function callOk<T = any>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = await callTool(client, name, args);
  expect(result.isError, result.content[0]?.text).toBeFalsy();
  expect(result.structuredContent).toBeDefined();
  expect(JSON.parse(result.content[0]!.text!)).toEqual(result.structuredContent);
  return result.structuredContent as T;
}

/** A failed result: `isError`, no structured content, and the text (message, next step, error code). */
export async function callFails(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  code: string,
): Promise<string> {
  const result = await callTool(client, name, args);
  expect(result.isError, JSON.stringify(result)).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const text = result.content[0]!.text!;
  expect(text).toContain(`(error code: ${code})`);
  expect(text).toMatch(/\nNext step: \S/);
  return text;
}

/** A JSON-RPC request body. */
export const rpc = (method: string, params: Record<string, unknown> = {}, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

/** The 2025-era handshake request of a client speaking `protocolVersion`. */
export const initialize = (protocolVersion: string) =>
  rpc('initialize', {
    protocolVersion,
    capabilities: {},
    clientInfo: { name: 'raw-test-client', version: '1.0.0' },
  });
