import {
  type AuthInfo,
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
  type McpServerFactory,
  readRequestBody,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { Deps } from '../../deps.ts';
import type { AppEnv } from '../../http/context.ts';
import { chargeRateLimit } from '../../http/rate-limit.ts';
import { AppError } from '../../lib/errors.ts';
import { issuerOf } from '../oauth/oauth.servers.ts';
import { verifyMcpCaller } from '../oauth/oauth.verify.ts';
import { ensureSeeded } from '../test-mode/seed.service.ts';
import { refuseBatch } from './mcp.limits.ts';
import { callerFromAuthInfo, createMcpServer } from './mcp.server.ts';
import type { McpCaller } from './tools/tool.ts';

/** The route's context: the RateLimit headers of the request, for the SDK's own Response. */
type McpEnv = { Variables: AppEnv['Variables'] & { rateLimitHeaders: Record<string, string> | null } };

/** Normalises an Origin header value; anything unparsable (including the literal `null`) matches nothing. */
function originOf(value: string): string | null {
  if (!URL.canParse(value)) return null;
  const origin = new URL(value).origin;
  return origin === 'null' ? null : origin;
}

/**
 * DNS-rebinding protection (MCP Streamable HTTP: servers must validate Origin): a request that carries an Origin
 * is refused with 403 (401 first when its key is not valid) unless that origin is configured in
 * MCP_ALLOWED_ORIGINS. Requests without Origin (every
 * non-browser client: Claude Code, Cursor, mcp-remote, SDKs) pass. Allowed browser origins get CORS headers,
 * including the answer to their preflight, which carries no Authorization header.
 */
function checkOrigin(deps: Deps, allowedOrigins: readonly string[]): MiddlewareHandler<McpEnv> {
  const allowed = new Set(allowedOrigins);
  const corsHeaders = cors({
    origin: (origin) => (allowed.has(originOf(origin) ?? '') ? origin : null),
    allowMethods: ['POST'],
    exposeHeaders: [
      'Mcp-Session-Id',
      'Mcp-Protocol-Version',
      'WWW-Authenticate',
      'Request-Id',
      'RateLimit',
      'RateLimit-Policy',
      'Retry-After',
    ],
    maxAge: 600,
  });
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin === undefined) return next();
    if (!allowed.has(originOf(origin) ?? '')) {
      // Authentication comes first (docs/api.md, Order of checks: auth 401 → … → 403): a request without a valid key learns only that.
      await verifyMcpCaller(deps, c);
      throw new AppError(
        'origin_not_allowed',
        `Origin '${origin.slice(0, 200)}' may not call /mcp. Browser-based MCP clients must be listed in ` +
          'MCP_ALLOWED_ORIGINS; other clients send no Origin header.',
      );
    }
    return corsHeaders(c, next);
  };
}

/**
 * /mcp: the MCP server over Streamable HTTP, stateless. Serves the current protocol revision (per-request
 * envelope) and 2025-era clients (`initialize`, answered by a fresh server per request) from one factory, with
 * the same keys, scopes, rate limit and live/test isolation as /v1. Order of checks: API key (401, the REST
 * error body with `WWW-Authenticate: Bearer`) → Origin (403) → rate limit (429) → method (405) → MCP.
 */
export function mcpRoutes(deps: Deps) {
  const factory: McpServerFactory = ({ authInfo }) => createMcpServer(deps, callerFromAuthInfo(authInfo));
  const maxRequestBodySize = deps.config.maxBodyBytes;
  const modern = createMcpHandler(factory, {
    legacy: 'reject',
    maxRequestBodySize,
    // Client mistakes (wrong media type, unsupported revision, bad envelope): worth a line, not a stack trace.
    onerror: (err) => deps.logger.info({ reason: err.message }, 'mcp request rejected'),
  });

  /**
   * Reads and parses a JSON body once, so that neither the era check nor the serving leg clones and re-reads the
   * stream. A body over MAX_BODY_BYTES is a 413 (the API's error body). Anything that is not parseable JSON goes
   * to the SDK unparsed (rebuilt when it was already read), which answers with its own 415 or parse error.
   */
  async function readBody(request: Request): Promise<{ request: Request; parsedBody?: unknown }> {
    if (!isJsonContentType(request.headers.get('content-type') ?? undefined)) return { request };
    const read = await readRequestBody(request, maxRequestBodySize);
    if (read.tooLarge) {
      throw new AppError(
        'payload_too_large',
        `The request body exceeds the limit of ${maxRequestBodySize} bytes.`,
      );
    }
    try {
      return { request, parsedBody: JSON.parse(read.text) };
    } catch {
      const headers = new Headers(request.headers);
      headers.delete('content-length');
      return { request: new Request(request.url, { method: 'POST', headers, body: read.text }) };
    }
  }

  /**
   * 2025-era requests: a fresh server and a stateless transport per request, as the SDK's own legacy fallback
   * does, but answering with plain JSON instead of a one-message SSE stream: the tools never stream (no progress,
   * no server-to-client requests), and a buffered JSON body is cheaper to produce and to read.
   */
  async function serveLegacy(request: Request, authInfo: AuthInfo, parsedBody: unknown): Promise<Response> {
    const server = await factory({ era: 'legacy', authInfo, requestInfo: request });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { authInfo, parsedBody });
    } finally {
      void transport.close().catch(() => {});
      void server.close().catch(() => {});
    }
  }

  const app = new Hono<McpEnv>();
  app.use('*', checkOrigin(deps, deps.config.mcp.allowedOrigins));
  app.use('*', async (c, next) => {
    c.set('actor', await verifyMcpCaller(deps, c));
    await next();
  });
  // The request counts once here (429 before the method check, as REST); a batch's further messages count when
  // its body is read.
  app.use('*', async (c, next) => {
    const headers = await chargeRateLimit(deps, c.get('actor').keyId);
    c.set('rateLimitHeaders', headers);
    for (const [name, value] of Object.entries(headers ?? {})) c.header(name, value);
    await next();
  });
  app.use('*', async (c, next) => {
    const actor = c.get('actor');
    if (actor.mode === 'test') await ensureSeeded(deps, actor.accountId);
    await next();
  });

  app.post('/', async (c) => {
    const caller: McpCaller = {
      actor: c.get('actor'),
      requestId: c.get('requestId'),
      log: c.get('log'),
      baseUrl: issuerOf(deps, c),
    };
    const authInfo: AuthInfo = {
      token: caller.actor.keyId,
      clientId: caller.actor.keyId,
      scopes: [...caller.actor.scopes],
      extra: { caller },
    };
    const { request, parsedBody } = await readBody(c.req.raw);
    let rateLimitHeaders = c.get('rateLimitHeaders');
    let res: Response | null = null;
    if (Array.isArray(parsedBody)) {
      // Every message counts, served or refused: a batch of N costs what N requests cost.
      if (parsedBody.length > 1)
        rateLimitHeaders =
          (await chargeRateLimit(deps, caller.actor.keyId, parsedBody.length - 1)) ?? rateLimitHeaders;
      res = refuseBatch(parsedBody, c.req.header('mcp-protocol-version'));
    }
    res ??= (await isLegacyRequest(request, parsedBody, { maxRequestBodySize }))
      ? await serveLegacy(request, authInfo, parsedBody)
      : await modern.fetch(request, { authInfo, parsedBody });
    // The SDK builds its own Response, which does not carry the headers prepared on the context.
    res.headers.set('Request-Id', caller.requestId);
    for (const [name, value] of Object.entries(rateLimitHeaders ?? {})) res.headers.set(name, value);
    return res;
  });
  // Stateless: no session to resume (GET opens a server-to-client stream) or to end (DELETE).
  app.all('/', () => {
    throw new AppError(
      'method_not_allowed',
      'This MCP endpoint is stateless: send JSON-RPC messages with POST. There is no session stream (GET) or ' +
        'session to delete (DELETE).',
      { headers: { Allow: 'POST' } },
    );
  });
  return app;
}
