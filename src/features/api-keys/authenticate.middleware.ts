import type { Context, MiddlewareHandler } from 'hono';
import type { Deps } from '../../deps.ts';
import type { AppEnv } from '../../http/context.ts';
import { AppError } from '../../lib/errors.ts';
import { verifyApiKey } from './api-keys.service.ts';
import type { Actor, Scope } from './scopes.ts';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by `authenticate`: the caller every /v1 handler passes to its service. */
    actor: Actor;
  }
}

/** Resolves the bearer key into an actor, or answers 401 with the fitting code. */
export function authenticate(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('actor', await verifyApiKey(deps, c.req.header('authorization')));
    await next();
  };
}

/**
 * The key check of a path no route serves (routeNotFound): a valid key is needed to learn that it does not
 * exist. Under /v1 `authenticate` has already run, so the key is not checked twice.
 */
export function verifyCaller(deps: Deps): (c: Context<AppEnv>) => Promise<void> {
  return async (c) => {
    if (!c.get('actor')) await verifyApiKey(deps, c.req.header('authorization'));
  };
}

/** 403 unless the key holds the scope; runs before input validation and lookups. */
export function requireScope(scope: Scope): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!c.get('actor').scopes.has(scope)) {
      throw new AppError(
        'insufficient_scope',
        `This API key lacks the '${scope}' scope needed for this operation.`,
      );
    }
    await next();
  };
}
