import { z } from '@hono/zod-openapi';
import { isCalendarDate, parseRangeBound } from '../lib/time.ts';

/** The error body every failure returns. */
export const ErrorBody = z
  .object({
    error: z.object({
      type: z.string().openapi({ example: 'invalid_request_error' }),
      code: z.string().openapi({ example: 'parameter_invalid' }),
      message: z.string().openapi({ example: "Invalid 'per_page': must be between 1 and 100." }),
      param: z.string().optional().openapi({ example: 'per_page' }),
      request_id: z.string().openapi({ example: 'req_4Jb2kX9qL0aZt7Yw3mNc8RfP' }),
    }),
  })
  .openapi('Error');

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
      description: 'Replays return the first response; 1–255 printable ASCII characters; kept 24 h.',
      example: 'c0ffee-2026-11-23-001',
    }),
});

export const idempotencyErrors = {
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
  .openapi('PageMeta');

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
