import type { Context, Hono } from 'hono';
import { AppError } from '../lib/errors.ts';
import type { AppEnv } from './context.ts';
import { errorResponse } from './errors.ts';

const ROUTE_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * 405 with `Allow` when the path exists with other methods, 404 `route_not_found` otherwise. Authentication
 * comes first (docs/api.md, Order of checks: auth 401 → unknown route 404): `verifyCaller` throws the 401 of a
 * caller without a valid key, who may not learn which paths do not exist.
 */
export function routeNotFound(app: Hono<AppEnv>, verifyCaller: (c: Context<AppEnv>) => Promise<void>) {
  let patterns: { re: RegExp; method: string }[] | undefined;
  return async (c: Context<AppEnv>): Promise<Response> => {
    patterns ??= app.routes
      .filter((r) => ROUTE_METHODS.has(r.method))
      .map((r) => ({
        method: r.method,
        re: new RegExp(`^${r.path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\/:[^/]+/g, '/[^/]+')}$`),
      }));
    const allowed = [...new Set(patterns.filter((p) => p.re.test(c.req.path)).map((p) => p.method))];
    if (allowed.length) {
      if (allowed.includes('GET')) allowed.push('HEAD');
      return errorResponse(
        c,
        new AppError('method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}.`, {
          headers: { Allow: allowed.join(', ') },
        }),
      );
    }
    try {
      await verifyCaller(c);
    } catch (err) {
      if (err instanceof AppError) return errorResponse(c, err);
      throw err;
    }
    return errorResponse(
      c,
      new AppError('route_not_found', `No route ${c.req.method} ${c.req.path}. See GET /v1/openapi.json.`),
    );
  };
}
