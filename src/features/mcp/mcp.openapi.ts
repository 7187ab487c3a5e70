import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Deps } from '../../deps.ts';
import { commonErrors } from '../../http/schemas.ts';
import { OAUTH_ROUTES } from '../oauth/oauth.paths.ts';
import { SCOPE_DESCRIPTIONS } from '../oauth/scope-descriptions.ts';

const JsonRpcId = z.union([z.string(), z.number().int()]);

const McpRequest = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: JsonRpcId.optional(),
    method: z.string(),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('McpRequest', {
    description:
      'A JSON-RPC 2.0 message of the Model Context Protocol (a request, or a notification without `id`).',
    example: {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'search_notes', arguments: { query: 'budget overrun', limit: 3 } },
    },
  });

const McpResponse = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: JsonRpcId.nullable(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .openapi('McpResponse', {
    description: 'The JSON-RPC 2.0 answer: `result`, or `error` for a protocol-level failure.',
    example: {
      jsonrpc: '2.0',
      id: 7,
      result: {
        content: [{ type: 'text', text: '{"results":[]}' }],
        structuredContent: { results: [] },
        isError: false,
      },
    },
  });

/**
 * The `oauth2` security scheme: the authorization server MCP clients sign in with (docs/mcp.md); its access
 * tokens are bound to /mcp.
 */
export function documentMcpSignIn(registry: OpenAPIHono['openAPIRegistry'], deps: Deps): void {
  const issuer = deps.config.publicUrl?.replace(/\/+$/, '') ?? '';
  registry.registerComponent('securitySchemes', 'oauth2', {
    type: 'oauth2',
    description:
      'OAuth 2.1 (authorization code with PKCE S256, dynamic registration) for MCP clients. Access tokens are ' +
      'accepted by POST /mcp only (the /v1 operations take API keys); each tool needs the scope of the REST ' +
      "operation it wraps, named in that operation's `x-scope`.",
    flows: {
      authorizationCode: {
        authorizationUrl: `${issuer}${OAUTH_ROUTES.authorization}`,
        tokenUrl: `${issuer}${OAUTH_ROUTES.token}`,
        refreshUrl: `${issuer}${OAUTH_ROUTES.token}`,
        scopes: SCOPE_DESCRIPTIONS,
      },
    },
  });
}

/**
 * Describes `POST /mcp` in the OpenAPI document. It is served by the MCP SDK (mcp.routes.ts), not by an OpenAPI
 * route, so this is documentation only; the tools themselves are described by MCP's own `tools/list`.
 */
export function documentMcp(registry: OpenAPIHono['openAPIRegistry']): void {
  registry.registerPath({
    method: 'post',
    path: '/mcp',
    tags: ['MCP'],
    operationId: 'callMcp',
    summary: 'Model Context Protocol endpoint (Streamable HTTP, stateless)',
    description:
      'The MCP server for AI assistants: JSON-RPC 2.0 over Streamable HTTP, one request per POST, no session. ' +
      'Authenticated with the same API keys; each tool needs the scope of the REST operation it wraps (a missing ' +
      'scope is an `isError` tool result, not an HTTP error). Tools: search_notes, list_notes, get_note, ' +
      'get_transcript, update_note, rename_speakers, get_note_export, list_action_items, update_action_item, list_highlights, list_webhooks, search, fetch; ' +
      'OAuth 2.1 access tokens of this server (the `oauth2` scheme, bound to `<PUBLIC_URL>/mcp`) work as keys do; ' +
      'call `tools/list` for their input and output schemas. A browser `Origin` must be listed in ' +
      'MCP_ALLOWED_ORIGINS (403 otherwise); clients that send no Origin pass. Every JSON-RPC message counts ' +
      'against the key’s rate limit (a batch of N counts N; answers carry the RateLimit headers). Batches (protocol ' +
      'revision 2025-03-26 only) hold at most 10 messages; one tool result is at most 1 MiB and the results of ' +
      'one request 4 MiB (`result_too_large` tool errors beyond).',
    security: [{ bearerAuth: [] }, { oauth2: [] }],
    request: { body: { required: true, content: { 'application/json': { schema: McpRequest } } } },
    responses: {
      200: {
        description:
          'The JSON-RPC answer, as JSON or as a one-message `text/event-stream`, per the Accept header.',
        content: { 'application/json': { schema: McpResponse } },
      },
      202: { description: 'A notification (no `id`) was accepted; no body.' },
      400: {
        description:
          'A JSON-RPC error (`-32600`) of the transport: a batch of more than 10 messages, a batch for a revision ' +
          'without batches, or another malformed request.',
        content: { 'application/json': { schema: McpResponse } },
      },
      401: commonErrors[401],
      403: {
        description: 'The browser Origin is not allowed (`origin_not_allowed`).',
        content: commonErrors[403].content,
      },
      405: { description: 'Only POST is served (stateless: no GET stream, no DELETE of a session).' },
      429: commonErrors[429],
    },
  });
}
