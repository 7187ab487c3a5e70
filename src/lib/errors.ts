/**
 * The closed set of error codes. Services throw `AppError(code, message)`; the HTTP layer maps each code
 * to its status and type in one place (src/http/errors.ts); MCP maps them to tool errors.
 */
export const ERROR_CODES = {
  /** A parameter has the wrong type, format or range. */
  parameter_invalid: { status: 400, type: 'invalid_request_error' },
  /** A required parameter is absent. */
  parameter_missing: { status: 400, type: 'invalid_request_error' },
  /** A body field the endpoint does not know (typos surface instead of being ignored). */
  parameter_unknown: { status: 400, type: 'invalid_request_error' },
  /** The body is not valid JSON. */
  body_invalid_json: { status: 400, type: 'invalid_request_error' },
  /** No Authorization header. */
  api_key_missing: { status: 401, type: 'authentication_error' },
  /** Malformed or unknown key. */
  api_key_invalid: { status: 401, type: 'authentication_error' },
  /** The key was revoked. */
  api_key_revoked: { status: 401, type: 'authentication_error' },
  /** The key is past its expiry. */
  api_key_expired: { status: 401, type: 'authentication_error' },
  /** The key lacks the scope the operation needs; the message names it. */
  insufficient_scope: { status: 403, type: 'permission_error' },
  /** A browser Origin that is not configured in MCP_ALLOWED_ORIGINS. */
  origin_not_allowed: { status: 403, type: 'permission_error' },
  /** No such object in the caller's account and mode (never says whether it exists elsewhere). */
  resource_not_found: { status: 404, type: 'not_found_error' },
  /** No such route. */
  route_not_found: { status: 404, type: 'not_found_error' },
  /** The route exists, not with this method. */
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  /** A request with the same Idempotency-Key is still running. */
  idempotency_key_in_use: { status: 409, type: 'conflict_error' },
  /** The account already has as many webhooks (in this mode) as WEBHOOKS_MAX_PER_ACCOUNT allows. */
  webhook_limit_reached: { status: 409, type: 'conflict_error' },
  /** The body (or one field of it) is larger than allowed. */
  payload_too_large: { status: 413, type: 'invalid_request_error' },
  /** The Content-Type is not one the endpoint accepts. */
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  /** A `Range` that starts past the end of the file. */
  range_not_satisfiable: { status: 416, type: 'invalid_request_error' },
  /** The Idempotency-Key was used before with a different request. */
  idempotency_key_reused: { status: 422, type: 'invalid_request_error' },
  /** Too many requests for this key in the current window. */
  rate_limited: { status: 429, type: 'rate_limit_error' },
  /** A bug or an unexpected failure; details are logged, never returned. */
  internal_error: { status: 500, type: 'api_error' },
  /** A dependency (the database) is unreachable. */
  unavailable: { status: 503, type: 'api_error' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: { param?: string; headers?: Record<string, string> } = {},
  ) {
    super(message);
  }
}

export const notFound = (what: string, id: string) =>
  new AppError('resource_not_found', `No ${what} with id '${id}' exists.`, { param: 'id' });
