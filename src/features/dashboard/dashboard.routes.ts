import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { matchedRoutes } from 'hono/route';
import type { Logger } from 'pino';
import type { Deps } from '../../deps.ts';
import type { AppEnv } from '../../http/context.ts';
import { hostAllowList } from '../../http/host-allow-list.ts';
import { labelRoute } from '../../http/metrics.ts';
import { actionItemsRoutes } from './action-items.routes.ts';
import { loadAssets } from './assets.ts';
import { authRoutes } from './auth.routes.ts';
import type { DashEnv } from './dashboard.env.ts';
import { keysRoutes } from './keys.routes.ts';
import { mcpRoutes } from './mcp.routes.ts';
import { notesRoutes } from './notes.routes.ts';
import { errorPage, PAGE_HEADERS } from './respond.ts';
import { requireSession } from './session.ts';
import { uploadRoutes } from './upload.routes.ts';
import { webhooksRoutes } from './webhooks.routes.ts';

/**
 * The paths the dashboard answers. Everything else (/v1, /mcp, /healthz, /docs, unknown paths) is left to the
 * API exactly as before: the dashboard is dispatched to from a middleware, so its routes are not the API's
 * (an unknown method on `/` is still the API's 404, not a 405).
 */
const DASHBOARD_PATH =
  /^\/(?:|sign-in|sign-out|setup|mode|upload(?:\/imports\/[^/]+(?:\/status)?)?|action-items(?:\/[^/]+)?|notes\/[^/]+(?:\/(?:status|audio|delete|speakers))?|settings\/(?:keys|webhooks|mcp)(?:\/.*)?|assets\/[^/]+)$/;

/** Largest body of a form post other than Upload. */
const FORM_MAX_BYTES = 256 * 1024;

/** Pages are read with GET and changed with form POSTs; other methods stay the API's (404/405 as JSON). */
const DASHBOARD_METHODS = new Set(['GET', 'HEAD', 'POST']);

export function isDashboardPath(path: string): boolean {
  return DASHBOARD_PATH.test(path);
}

/** The web dashboard: server-rendered pages (web/pages) over the same services as REST and MCP. */
export function dashboardApp(deps: Deps) {
  const assets = loadAssets();
  const app = new Hono<DashEnv>();
  app.use('*', async (c, next) => {
    c.set('log', (c.env as { log?: Logger } | undefined)?.log ?? deps.logger);
    // The request as the outer app has it (a body limit replaces c.req.raw on the way).
    const request = c.req.raw;
    await next();
    // The page's own route: middlewares ('*') registered after it match too.
    labelRoute(request, matchedRoutes(c).findLast((r) => !r.path.endsWith('*'))?.path ?? '*');
  });
  app.use('*', hostAllowList(deps.config));
  app.get('/assets/:name', (c) => assets.serve(c, c.req.param('name')));
  // Forms are small; only Upload streams a large body (to disk, with its own limit). Checked before sign-in too.
  const formLimit = bodyLimit({
    maxSize: FORM_MAX_BYTES,
    onError: (c) => c.text('The form is too large.', 413),
  });
  app.use('*', async (c, next) =>
    c.req.method === 'POST' && c.req.path !== '/upload' ? formLimit(c, next) : next(),
  );
  authRoutes(app, deps, assets);
  app.use('*', requireSession(deps));
  notesRoutes(app, deps, assets);
  uploadRoutes(app, deps, assets);
  actionItemsRoutes(app, deps, assets);
  keysRoutes(app, deps, assets);
  webhooksRoutes(app, deps, assets);
  mcpRoutes(app, deps, assets);
  app.onError(errorPage);
  app.notFound((c) =>
    c.html('<!doctype html><title>Not found</title><p>Not found. <a href="/">Notes</a>', 404, PAGE_HEADERS),
  );
  return app;
}

/** Hands dashboard paths to the dashboard app; everything else continues to the API. */
export function mountDashboard(deps: Deps): MiddlewareHandler<AppEnv> {
  const dashboard = dashboardApp(deps);
  return async (c, next) => {
    if (!DASHBOARD_METHODS.has(c.req.method) || !isDashboardPath(c.req.path)) return next();
    return dashboard.fetch(c.req.raw, { ...(c.env as object), log: c.get('log') });
  };
}
