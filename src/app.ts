import { sql } from 'kysely';
import type { Deps } from './deps.ts';
import { actionItemsRoutes } from './features/action-items/action-items.routes.ts';
import { authenticate, verifyCaller } from './features/api-keys/authenticate.middleware.ts';
import { askRoutes } from './features/ask/ask.routes.ts';
import { mountDashboard } from './features/dashboard/dashboard.routes.ts';
import { importsRoutes } from './features/imports/imports.routes.ts';
import { documentMcp, documentMcpSignIn } from './features/mcp/mcp.openapi.ts';
import { mcpRoutes } from './features/mcp/mcp.routes.ts';
import { notesRoutes } from './features/notes/notes.routes.ts';
import { mountOAuth } from './features/oauth/oauth.routes.ts';
import { recordingsRoutes } from './features/recordings/recordings.routes.ts';
import { searchRoutes } from './features/search/search.routes.ts';
import { ensureSeeded } from './features/test-mode/seed.service.ts';
import { documentWebhookEvents } from './features/webhooks/webhooks.openapi.ts';
import { webhooksRoutes } from './features/webhooks/webhooks.routes.ts';
import { apiRouter } from './http/api-router.ts';
import { docsRoutes } from './http/docs.routes.ts';
import { errorResponse, toAppError } from './http/errors.ts';
import { mountMetrics } from './http/metrics.ts';
import { requestContext } from './http/middleware.ts';
import { routeNotFound } from './http/not-found.ts';
import { documentApi } from './http/openapi-document.ts';
import { rateLimit } from './http/rate-limit.ts';
import { AppError } from './lib/errors.ts';

/** Builds the whole HTTP app: request id → auth → rate limit → feature routes, one error handler. */
export function buildApp(deps: Deps) {
  const app = apiRouter();

  app.use('*', requestContext(deps));
  mountMetrics(app, deps);
  app.onError((err, c) => errorResponse(c, toAppError(c, err)));

  // The OAuth 2.1 authorization server for MCP clients: discovery, its endpoints and the consent page.
  app.use('*', mountOAuth(deps));
  // The web dashboard at / (server-rendered pages with cookie sessions); the API's paths are not among its own.
  app.use('*', mountDashboard(deps));

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    try {
      await sql`SELECT 1`.execute(deps.db);
    } catch {
      throw new AppError('unavailable', 'The database is not reachable.');
    }
    // Ready means the database answers (docs/api.md, General). Search is prepared in the background at start (the first
    // start builds the builtin embedder's cache); until then searches wait for it, and this says so.
    const search = deps.search.readiness();
    return c.json({
      status: 'ok',
      database: deps.dialect,
      ...(search ? { search: search.state === 'ready' ? (search.mode ?? 'hybrid') : search.state } : {}),
      // How vectors are searched once ready: sqlite-vec, pgvector (HNSW) or exact (in the server process).
      ...(search?.vectors ? { search_vectors: search.vectors } : {}),
    });
  });

  documentApi(app, deps, [documentMcpSignIn, documentMcp, documentWebhookEvents]);
  // The rendered reference of that document, no key needed; `/` points to it until the dashboard takes `/`.
  app.route('/', docsRoutes());

  const v1 = apiRouter();
  v1.use('*', authenticate(deps));
  v1.use(
    '*',
    rateLimit(deps, (c) => c.get('actor').keyId),
  );
  // A test key's first request seeds that account's test data space.
  v1.use('*', async (c, next) => {
    const actor = c.get('actor');
    if (actor.mode === 'test') await ensureSeeded(deps, actor.accountId);
    await next();
  });
  v1.route('/notes', notesRoutes(deps));
  v1.route('/recordings', recordingsRoutes(deps));
  v1.route('/action-items', actionItemsRoutes(deps));
  v1.route('/search', searchRoutes(deps));
  v1.route('/webhooks', webhooksRoutes(deps));
  v1.route('/ask', askRoutes(deps));
  v1.route('/imports', importsRoutes(deps));
  app.route('/v1', v1);
  // MCP authenticates itself with the same keys (its Origin check comes first), so it is outside /v1.
  app.route('/mcp', mcpRoutes(deps));

  app.notFound(routeNotFound(app, verifyCaller(deps)));
  return app;
}

export type App = ReturnType<typeof buildApp>;
