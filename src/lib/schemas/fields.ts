import { z } from '@hono/zod-openapi';
import { isCalendarDate, parseRangeBound } from '../time.ts';

/**
 * Zod fields shared by the REST schemas, the MCP tools and the CLI: paging, page metadata, date bounds, calendar
 * dates and code-point lengths. They carry OpenAPI metadata (`@hono/zod-openapi`'s `z`) but nothing HTTP-specific.
 */

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

/** A query or question in plain words: not blank, at most 1000 characters (code points, as a reader counts). */
export const plainWords = (doc: { description: string; example: string }) =>
  z
    .string()
    .refine((v) => v.trim().length > 0, { message: 'must not be empty or only whitespace' })
    .refine((v) => codePoints(v) <= 1000, { message: 'must be at most 1000 characters' })
    .openapi({ type: 'string', minLength: 1, maxLength: 1000, ...doc } as never);
