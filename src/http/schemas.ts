import { type RouteConfig, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { Scope } from '../features/api-keys/scopes.ts';
import { EXAMPLE } from '../lib/schemas/examples.ts';
import type { AppEnv } from './context.ts';
import { requireScope } from './middleware.ts';

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

/** The error body every failure returns. */
export const ErrorBody = z
  .object({
    error: z.object({
      type: z.string().openapi({ example: 'invalid_request_error' }),
      code: z.string().openapi({ example: 'parameter_invalid' }),
      message: z.string().openapi({ example: "Invalid 'per_page': must be between 1 and 100." }),
      param: z.string().optional().openapi({ example: 'per_page' }),
      request_id: z.string().openapi({ example: EXAMPLE.requestId }),
    }),
  })
  .openapi('Error', {
    example: {
      error: {
        type: 'invalid_request_error',
        code: 'parameter_invalid',
        message: "Invalid 'per_page': must be between 1 and 100.",
        param: 'per_page',
        request_id: EXAMPLE.requestId,
      },
    },
  });

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ErrorBody } },
});

/** Error responses shared by every authenticated route, merged into each route's `responses`. */
export const commonErrors = {
  400: errorResponse('Invalid input: wrong type, format, range, unknown body field or malformed JSON.'),
  401: errorResponse('Missing, malformed, unknown, revoked or expired API key.'),
  403: errorResponse('The API key lacks the scope this operation needs.'),
  429: errorResponse('Rate limit exceeded; see Retry-After.'),
  500: errorResponse('Internal error.'),
  503: errorResponse(
    'The database is momentarily too busy (`unavailable`); nothing was changed. Retry after Retry-After seconds.',
  ),
} as const;

/** POST /v1/webhooks over WEBHOOKS_MAX_PER_ACCOUNT. */
export const webhookLimitError = {
  409: errorResponse(
    'The account already has as many webhooks in this mode as allowed (`webhook_limit_reached`).',
  ),
} as const;

export const notFoundError = { 404: errorResponse('No such object in this account and mode.') } as const;
export const bodyErrors = {
  413: errorResponse('The body is larger than allowed.'),
  415: errorResponse('Content-Type is not application/json.'),
} as const;

/** Optional `Idempotency-Key` header of POST operations that create something. */
export const IdempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .openapi({
      param: { name: 'idempotency-key', in: 'header' },
      description:
        'Replays return the first response; 1–255 printable ASCII characters; kept 24 h (RETENTION_IDEMPOTENCY_HOURS).',
      example: 'c0ffee-2026-11-23-001',
    }),
});

export const idempotencyErrors = {
  404: errorResponse(
    'A replay of an Idempotency-Key whose note has since been deleted: its stored response is gone with it.',
  ),
  409: errorResponse('A request with this Idempotency-Key is still running.'),
  422: errorResponse('This Idempotency-Key was used with a different request.'),
} as const;
