import { OpenAPIHono } from '@hono/zod-openapi';
import { sql } from 'kysely';
import { actionItemsRoutes } from './features/action-items/action-items.routes.ts';
import { documentMcp } from './features/mcp/mcp.openapi.ts';
import { mcpRoutes } from './features/mcp/mcp.routes.ts';
import { notesRoutes } from './features/notes/notes.routes.ts';
import { recordingsRoutes } from './features/recordings/recordings.routes.ts';
import { searchRoutes } from './features/search/search.routes.ts';
import { searchReadiness } from './features/search/search-engine.ts';
import { ensureSeeded } from './features/test-mode/seed.service.ts';
import { documentWebhookEvents } from './features/webhooks/webhook-events.openapi.ts';
import { webhooksRoutes } from './features/webhooks/webhooks.routes.ts';
import type { AppEnv, Deps } from './http/context.ts';
import { errorResponse, toAppError } from './http/errors.ts';
import { authenticate, requestContext } from './http/middleware.ts';
import { routeNotFound } from './http/not-found.ts';
import { rateLimit } from './http/rate-limit.ts';
import { validationHook } from './http/validation.ts';
import { AppError } from './lib/errors.ts';

/** Builds the whole HTTP app: request id → auth → rate limit → feature routes, one error handler. */
export function buildApp(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.use('*', requestContext(deps));
  app.onError((err, c) => errorResponse(c, toAppError(c, err)));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    try {
      await sql`SELECT 1`.execute(deps.db);
    } catch {
      throw new AppError('unavailable', 'The database is not reachable.');
    }
    // Ready means the database answers (API.md). Search is prepared in the background at start (the first
    // start builds the builtin embedder's cache); until then searches wait for it, and this says so.
    const search = searchReadiness(deps);
    return c.json({
      status: 'ok',
      database: deps.dialect,
      ...(search ? { search: search.state === 'ready' ? (search.mode ?? 'hybrid') : search.state } : {}),
    });
  });

  app.doc31('/v1/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Minutes API',
      version: '1.0.0',
      description:
        'Notes from captured recordings: transcripts with speakers, summaries, action items, highlights, ' +
        'semantic search and webhooks. Authenticate with `Authorization: Bearer svc_sk_live_…` (or `svc_sk_test_…` ' +
        'for the seeded test data space). Each operation names the one scope it needs in its `security` ' +
        'requirement (a key created without scopes has them all). The MCP server for assistants is at `POST /mcp` ' +
        '(JSON-RPC over Streamable HTTP, stateless) with the same keys and scopes; its tools are described by ' +
        'MCP `tools/list`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key: svc_sk_live_… or svc_sk_test_…',
  });

  const v1 = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  v1.use('*', authenticate(deps));
  v1.use('*', rateLimit(deps));
  // A test key's first request seeds that account's test data space.
  v1.use('*', async (c, next) => {
    const actor = c.get('actor');
    if (actor.mode === 'test') await ensureSeeded(deps.db, actor.accountId);
    await next();
  });
  v1.route('/notes', notesRoutes(deps));
  v1.route('/recordings', recordingsRoutes(deps));
  v1.route('/action-items', actionItemsRoutes(deps));
  v1.route('/search', searchRoutes(deps));
  v1.route('/webhooks', webhooksRoutes(deps));
  app.route('/v1', v1);
  // MCP authenticates itself with the same keys (its Origin check comes first), so it is outside /v1.
  app.route('/mcp', mcpRoutes(deps));
  documentMcp(app.openAPIRegistry);
  documentWebhookEvents(app.openAPIRegistry);

  app.notFound(routeNotFound(app, deps));
  return app;
}

export type App = ReturnType<typeof buildApp>;
