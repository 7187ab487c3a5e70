import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi';
import type { Handler, MiddlewareHandler } from 'hono';
import type { AppEnv } from './context.ts';

/**
 * Documents an operation and serves it without OpenAPIHono's validators, for a body that is streamed (an
 * upload): a validator would buffer it. The route's middleware receives the body; the handler checks the rest.
 */
export function openapiStreamed(
  app: OpenAPIHono<AppEnv>,
  route: RouteConfig & { middleware: readonly MiddlewareHandler<AppEnv>[] },
  handler: Handler<AppEnv>,
): void {
  const { middleware, ...documented } = route;
  app.openAPIRegistry.registerPath(documented);
  app.on(route.method.toUpperCase(), [route.path.replace(/\{(\w+)\}/g, ':$1')], ...middleware, handler);
}
