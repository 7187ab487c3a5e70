import { type RouteConfig, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { Scope } from '../features/api-keys/scopes.ts';
import { isCalendarDate, parseRangeBound } from '../lib/time.ts';
import type { AppEnv } from './context.ts';
import { requireScope } from './middleware.ts';

/**
 * The one place an operation's scope is declared. Wraps a route config (before `createRoute`) so that the scope
 * check runs first (`requireScope`, before body parsing and validation: docs/api.md, Order of checks), the document
 * names the scope in the operation's own `security` requirement (`bearerAuth: [scope]`, OpenAPI 3.1 role names)
 * and its description ends with `Scope: \`…\`` (for readers, and test/helpers/routes.ts). Route and document
 * cannot disagree.
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
  security: { bearerAuth: Scope[] }[];
  middleware: [MiddlewareHandler<AppEnv>, ...M];
} {
  const { middleware = [] as unknown as M, ...rest } = route;
  return {
    ...(rest as Omit<R, 'description' | 'middleware'>),
    description: [route.description, `Scope: \`${scope}\`.`].filter(Boolean).join(' '),
    security: [{ bearerAuth: [scope] }],
    middleware: [requireScope(scope), ...middleware],
  };
}

/**
 * One consistent story for the document's examples: the note of a planning meeting, its recording, action item,
 * highlight and webhook. Ids have the API's form (prefix + 24 base62 characters).
 */
export const EXAMPLE = {
  noteId: 'note_3hX9kQ2mLp7Vb4Zt1Yc8Rn6W',
  recordingId: 'rec_5Tq8Lm2Zx9Kb4Vn7Yc1Rp3Wd',
  actionItemId: 'ai_7Kp2Qm9Xv4Lb8Zt1Yc3Rn6Wd',
  secondActionItemId: 'ai_2Wd6Rn3Yc1Zt8Lb4Xv9Qm7Kp',
  highlightId: 'hl_8Qm2ZtY4pLk9Rb1Xc7Vn3WsA',
  webhookId: 'wh_5Tq8LmZ2xK7bN4cV9pR1sW3y',
  deliveryId: 'dlv_2Hk9sQ4mZx7Lb1Nc8Vt3Rw6P',
  eventId: 'evt_7Yb3Kq9ZmL2xT5cN8vR4pW1s',
  requestId: 'req_4Jb2kX9qL0aZt7Yw3mNc8RfP',
  /** When the meeting was recorded: the note's and the recording's `created_at`. */
  recordedAt: '2026-11-20T14:00:00.000Z',
  /** When processing finished: the action items' `created_at`. */
  processedAt: '2026-11-20T14:31:07.412Z',
} as const;

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

const intParam = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      const n = /^\d{1,16}$/.test(v.trim()) ? Number(v.trim()) : Number.NaN;
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be an integer between ${min} and ${max}` });
        return z.NEVER;
      }
      return n;
    })
    .openapi({
      param: { name, in: 'query' },
      type: 'integer',
      minimum: min,
      maximum: max,
      default: fallback,
    } as never);

/** The largest page whose offset (at 100 per page) is still an exact integer: any page a client can mean. */
export const MAX_PAGE = Math.floor(Number.MAX_SAFE_INTEGER / 100);

export const PageQuery = {
  page: intParam('page', 1, MAX_PAGE, 1),
  per_page: intParam('per_page', 1, 100, 20),
};

/** `from`/`to`: a date (whole UTC day) or a date-time with offset; normalised to a half-open ISO bound. */
export const rangeBound = (edge: 'from' | 'to') =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      const bound = parseRangeBound(v.trim(), edge);
      if (!bound) {
        ctx.addIssue({
          code: 'custom',
          message:
            'must be an ISO 8601 date (YYYY-MM-DD) or date-time with a time zone (2026-01-05T09:00:00Z)',
        });
        return z.NEVER;
      }
      return bound;
    })
    .openapi({
      param: { name: edge, in: 'query' },
      type: 'string',
      description:
        edge === 'from'
          ? "Created at or after (a bare date: from that day's start, UTC)."
          : 'Created at or before (a bare date: through that whole UTC day).',
      example: '2026-01-05',
    } as never);

export const Meta = z
  .object({ page: z.number().int(), per_page: z.number().int(), total: z.number().int() })
  .openapi('PageMeta', { example: { page: 1, per_page: 20, total: 42 } });

/** A calendar date `YYYY-MM-DD` that exists (2026-02-30 does not). */
export const CalendarDate = z
  .string()
  .refine(isCalendarDate, { message: 'must be a real calendar date in the form YYYY-MM-DD' })
  .openapi({ type: 'string', format: 'date', example: '2026-12-04' });

/** Code points, not UTF-16 units, so an emoji counts as one character. */
export const codePoints = (s: string) => [...s].length;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find control characters
const CONTROL = /[\u0000-\u001f\u007f]/;
export const hasControlChars = (s: string) => CONTROL.test(s);

/** A trimmed single-line string of min..max code points without control characters. */
export const lineText = (min: number, max: number) =>
  z
    .string()
    .transform((v) => v.trim())
    .refine((v) => codePoints(v) >= min && codePoints(v) <= max, {
      message: `must be ${min}–${max} characters after trimming`,
    })
    .refine((v) => !hasControlChars(v), { message: 'must not contain control characters' });
