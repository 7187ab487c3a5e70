import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { databaseBusyError, isDatabaseBusy } from '../db/database-busy.ts';
import { AppError, ERROR_CODES } from '../lib/errors.ts';
import type { AppEnv } from './context.ts';

/** The one error body of the API: `{error: {type, code, message, param?, request_id}}`. */
export function errorResponse(c: Context<AppEnv>, error: AppError): Response {
  const { status, type } = ERROR_CODES[error.code];
  for (const [name, value] of Object.entries(error.details.headers ?? {})) c.header(name, value);
  if (status === 401 && !error.details.headers?.['WWW-Authenticate'])
    c.header('WWW-Authenticate', 'Bearer realm="minutes"');
  return c.json(
    {
      error: {
        type,
        code: error.code,
        message: error.message,
        ...(error.details.param ? { param: error.details.param } : {}),
        request_id: c.get('requestId'),
      },
    },
    status as ContentfulStatusCode,
  );
}

/**
 * PostgreSQL refuses NUL in text (SQLSTATE 22021 character_not_in_repertoire, 22P05 untranslatable_character).
 * That is bad input, not a server failure; the input schemas refuse it earlier where they can.
 */
function isUnstorableText(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '22021' || code === '22P05';
}

/** Maps anything thrown to an AppError; unexpected errors are logged with their stack and returned as 500. */
export function toAppError(c: Context<AppEnv>, err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof HTTPException) {
    if (err.status === 415) {
      return new AppError('unsupported_media_type', 'Content-Type must be application/json.');
    }
    if (err.status === 400 && /json/i.test(err.message)) {
      return new AppError('body_invalid_json', 'The request body is not valid JSON.');
    }
    if (err.status === 413) return new AppError('payload_too_large', 'The request body is too large.');
    if (err.status < 500) return new AppError('parameter_invalid', err.message || 'Invalid request.');
  }
  // The client hung up mid-request (a body cut off): nobody reads this answer, and it is not our failure.
  // requestContext logs it as one info line; no stack trace.
  if (c.req.raw.signal?.aborted) {
    return new AppError(
      'parameter_invalid',
      'The client closed the connection before the request was complete.',
    );
  }
  if (isUnstorableText(err)) {
    return new AppError('parameter_invalid', 'Text must not contain NUL (U+0000) characters.');
  }
  if (isDatabaseBusy(err)) {
    c.get('log')?.warn({ code: (err as { code: string }).code }, 'database busy: answered 503');
    return databaseBusyError();
  }
  c.get('log')?.error({ err }, 'unhandled error');
  return new AppError(
    'internal_error',
    'An internal error occurred. It has been logged; quote the request id.',
  );
}
