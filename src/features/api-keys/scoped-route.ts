import type { RouteConfig } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../http/context.ts';
import { requireScope } from './authenticate.middleware.ts';
import type { Scope } from './scopes.ts';

/**
 * The one place an operation's scope is declared. Wraps a route config (before `createRoute`) so that the scope
 * check runs first (`requireScope`, before body parsing and validation: docs/api.md, Order of checks), the document
 * names the scope in the operation's `x-scope` and its description ends with `Scope: \`…\`` (for readers, and
 * test/helpers/routes.ts). Its `security` is an API key only (`bearerAuth: []`): /v1 authenticates keys, not
 * OAuth access tokens, which only POST /mcp accepts. Route and document cannot disagree.
 */
export function scopedRoute<
  // operationId is required: generated SDKs name their methods after it (listNotes), so it must be stable.
  const R extends Omit<RouteConfig, 'security' | 'middleware'> & { operationId: string },
  const M extends readonly MiddlewareHandler<AppEnv>[] = [],
>(
  scope: Scope,
  route: R & { middleware?: M },
): Omit<R, 'description' | 'middleware'> & {
  description: string;
  security: { bearerAuth: [] }[];
  'x-scope': Scope;
  middleware: [MiddlewareHandler<AppEnv>, ...M];
} {
  const { middleware = [] as unknown as M, ...rest } = route;
  return {
    ...(rest as Omit<R, 'description' | 'middleware'>),
    description: [route.description, `Scope: \`${scope}\`.`].filter(Boolean).join(' '),
    security: [{ bearerAuth: [] }],
    'x-scope': scope,
    middleware: [requireScope(scope), ...middleware],
  };
}
