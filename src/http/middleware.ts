import type { MiddlewareHandler } from 'hono';
import type { Deps } from '../deps.ts';
import { verifyApiKey } from '../features/api-keys/api-keys.service.ts';
import type { Scope } from '../features/api-keys/scopes.ts';
import { AppError } from '../lib/errors.ts';
import { newId } from '../lib/ids.ts';
import { wellFormedDeep } from '../lib/text.ts';
import type { AppEnv } from './context.ts';

/** The Content-Type of every JSON response (docs/api.md, General). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Gives every request an id (`Request-Id` header, every log line), makes `c.json` answer with
 * JSON_CONTENT_TYPE (Hono's own says no charset), and logs the outcome.
 */
export function requestContext(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const json = c.json;
    c.json = ((object: never, arg?: never, headers?: Record<string, string>) =>
      json(object, arg, { 'Content-Type': JSON_CONTENT_TYPE, ...headers })) as unknown as typeof c.json;
    const requestId = newId('request');
    const log = deps.logger.child({ request_id: requestId });
    c.set('requestId', requestId);
    c.set('log', log);
    // Set before the handler runs, so the response is built with it (a header added afterwards forces
    // @hono/node-server off its fast path and costs a fifth of the throughput of small responses).
    c.header('Request-Id', requestId);
    const started = performance.now();
    await next();
    if (!log.isLevelEnabled('info')) return;
    const ms = Math.round((performance.now() - started) * 10) / 10;
    // One line, no stack, when the client went away before its request was complete.
    if (c.req.raw.signal?.aborted) {
      log.info({ method: c.req.method, path: c.req.path, ms }, 'client disconnected');
      return;
    }
    log.info({ method: c.req.method, path: c.req.path, status: c.res.status, ms }, 'request');
  };
}

/** Resolves the bearer key into an actor, or answers 401 with the fitting code. */
export function authenticate(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('actor', await verifyApiKey(deps, c.req.header('authorization')));
    await next();
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

/**
 * Reads a JSON body within a byte limit (413), refuses other media types (415) and malformed JSON (400),
 * so the route's validator only ever sees parsed JSON.
 */
export function jsonBody(maxBytes: (deps: Deps) => number, deps: Deps): MiddlewareHandler<AppEnv> {
  const limit = maxBytes(deps);
  return async (c, next) => {
    const type = c.req.header('content-type');
    const length = c.req.header('content-length');
    const hasBody =
      (length !== undefined && length !== '0') || c.req.header('transfer-encoding') !== undefined;
    if (type !== undefined && !/^application\/(.+\+)?json\s*(;|$)/i.test(type)) {
      throw new AppError('unsupported_media_type', `Content-Type must be application/json, not '${type}'.`);
    }
    if (type === undefined && hasBody) {
      throw new AppError('unsupported_media_type', 'Content-Type must be application/json.');
    }
    if (length !== undefined && Number(length) > limit) throw tooLarge(limit);
    const raw = c.req.raw.body ? await readLimited(c.req.raw.body, limit) : '';
    // A body can come without either length header (HTTP/2, fetch): what counts is whether it has bytes.
    if (type === undefined && raw.trim() !== '') {
      throw new AppError('unsupported_media_type', 'Content-Type must be application/json.');
    }
    let parsed: unknown = {};
    if (raw.trim() !== '') {
      try {
        parsed = JSON.parse(raw);
      } catch {
        throw new AppError('body_invalid_json', 'The request body is not valid JSON.');
      }
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new AppError('parameter_invalid', 'The request body must be a JSON object.');
    }
    // One rule on both databases: a lone surrogate (`"\ud800"` is valid JSON) becomes U+FFFD here.
    wellFormedDeep(parsed);
    const nul = findNul(parsed);
    if (nul !== null) {
      throw new AppError(
        'parameter_invalid',
        `Invalid '${nul}': text must not contain NUL (U+0000) characters.`,
        {
          param: nul,
        },
      );
    }
    // The route's validator reads the body through Hono's cache. Hono's json() parses the cached *text*
    // (with only `json` cached it re-serialises it, and JSON.stringify overflows the stack on deeply nested
    // bodies that JSON.parse accepted): cache the text we read, and the parsed object for other readers.
    const cache = (c.req as unknown as { bodyCache: Record<string, unknown> }).bodyCache;
    cache.text = Promise.resolve(raw.trim() === '' ? '{}' : rawAfterFix(raw, parsed));
    cache.json = Promise.resolve(parsed);
    await next();
  };
}

/**
 * The path (`segments.3.text`) of the first string or key holding U+0000, or null. PostgreSQL cannot store NUL
 * in text, so it is refused for every body on both databases. Iterative: bodies may nest thousands deep.
 */
function findNul(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return path;
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        const childPath = path ? `${path}.${k}` : k;
        if (k.includes('\u0000')) return childPath;
        stack.push([child, childPath]);
      }
    }
  }
  return null;
}

/**
 * The body text the route's validator reads: the raw text, unless it escapes a surrogate (`\ud800`), when the
 * fixed object is serialised again so validator and services see the same well-formed strings.
 */
function rawAfterFix(raw: string, parsed: unknown): string {
  if (!/\\u[dD][89a-fA-F]/.test(raw)) return raw;
  try {
    return JSON.stringify(parsed);
  } catch {
    return raw;
  }
}

function tooLarge(limit: number): AppError {
  return new AppError('payload_too_large', `The request body exceeds the limit of ${limit} bytes.`);
}

async function readLimited(stream: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
