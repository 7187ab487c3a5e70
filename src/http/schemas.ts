import { z } from '@hono/zod-openapi';
import { EXAMPLE } from '../lib/schemas/examples.ts';
import { jsonResponse } from './openapi-content.ts';

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

/** An error response of the document: the shared error body under an operation's own description. */
export const documentedError = (description: string) => jsonResponse(ErrorBody, description);

/** Error responses shared by every authenticated route, merged into each route's `responses`. */
export const commonErrors = {
  400: documentedError('Invalid input: wrong type, format, range, unknown body field or malformed JSON.'),
  401: documentedError('Missing, malformed, unknown, revoked or expired API key.'),
  403: documentedError('The API key lacks the scope this operation needs.'),
  429: documentedError('Rate limit exceeded; see Retry-After.'),
  500: documentedError('Internal error.'),
  503: documentedError(
    'The database is momentarily too busy (`unavailable`); nothing was changed. Retry after Retry-After seconds.',
  ),
} as const;

const notFoundError = { 404: documentedError('No such object in this account and mode.') } as const;
const bodyErrors = {
  413: documentedError('The body is larger than allowed.'),
  415: documentedError('Content-Type is not application/json.'),
} as const;

/** Error responses of an operation on one object named in its path: the common ones and 404. */
export const objectErrors = { ...commonErrors, ...notFoundError } as const;

/** Error responses of an operation that reads a JSON body: the common ones, 413 and 415. */
export const jsonBodyErrors = { ...commonErrors, ...bodyErrors } as const;

/** Error responses of an operation on one object named in its path that reads a JSON body. */
export const objectJsonBodyErrors = { ...commonErrors, ...notFoundError, ...bodyErrors } as const;

/** A file field of a multipart form: documented as binary (`as never`: zod-openapi types the field as a string). */
export const fileFormField = (description: string) =>
  z.string().openapi({ type: 'string', format: 'binary', description } as never);

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
  404: documentedError(
    'A replay of an Idempotency-Key whose note has since been deleted: its stored response is gone with it.',
  ),
  409: documentedError('A request with this Idempotency-Key is still running.'),
  422: documentedError('This Idempotency-Key was used with a different request.'),
} as const;
