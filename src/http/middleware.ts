import type { MiddlewareHandler } from 'hono';
import type { Deps } from '../deps.ts';
import { verifyApiKey } from '../features/api-keys/api-keys.service.ts';
import type { Scope } from '../features/api-keys/scopes.ts';
import type { JsonBodyOptions, ParsedTranscriptBody } from '../features/processing/pool/processing.worker.ts';
import type { TranscriptUse } from '../features/transcripts/prepared-transcript.ts';
import { AppError } from '../lib/errors.ts';
import { newId } from '../lib/ids.ts';
import { type ParsedJsonBody, parseJsonBody } from '../lib/parse-json-body.ts';
import type { AppEnv } from './context.ts';

/** Bodies up to this size are parsed on the request's thread; larger ones in a processing thread. */
const INLINE_BODY_BYTES = 64 * 1024;

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
 * so the route's validator only ever sees parsed JSON. With `transcript`, a large body's transcript is prepared
 * in the thread that parses it, for that use.
 */
export function jsonBody(
  maxBytes: (deps: Deps) => number,
  deps: Deps,
  options: { transcript?: TranscriptUse } = {},
): MiddlewareHandler<AppEnv> {
  const limit = maxBytes(deps);
  const transcript = options.transcript && { limit: deps.config.maxTranscriptBytes, use: options.transcript };
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
    const bytes = c.req.raw.body ? await readLimited(c.req.raw.body, limit) : Buffer.alloc(0);
    // A body can come without either length header (HTTP/2, fetch): what counts is whether it has bytes.
    const fingerprintOf =
      c.req.header('idempotency-key') !== undefined ? `${c.req.method} ${c.req.path}` : undefined;
    const body: ParsedTranscriptBody =
      bytes.byteLength > INLINE_BODY_BYTES
        ? await parseLarge(deps, bytes, type, { transcript, fingerprintOf })
        : parseSmall(bytes, type);
    if (body.prepared && typeof body.value.transcript === 'string') {
      c.set('preparedTranscript', { source: body.value.transcript, prepared: body.prepared });
    }
    if (body.fingerprint !== undefined) c.set('bodyFingerprint', body.fingerprint);
    // The route's validator reads `c.req.json()`, which in Hono parses the cached text again: answer it with
    // the object read here instead. The text (for `c.req.text()`) is decoded only if someone asks; when a lone
    // surrogate was repaired it is the repaired object serialised, so every reader sees the same strings.
    c.req.json = (() => Promise.resolve(body.value)) as typeof c.req.json;
    const cache = (c.req as unknown as { bodyCache: Record<string, unknown> }).bodyCache;
    let text: Promise<string> | undefined;
    Object.defineProperty(cache, 'text', {
      enumerable: true,
      get: () => {
        text ??= Promise.resolve(textOf(bytes, body));
        return text;
      },
    });
    await next();
  };
}

/**
 * A small body read in place. A body without a Content-Type is refused unless it is empty (some clients send
 * none with an empty body).
 */
function parseSmall(bytes: Buffer, type: string | undefined): ParsedJsonBody {
  const raw = bytes.toString('utf8');
  if (type === undefined && raw.trim() !== '') {
    throw new AppError('unsupported_media_type', 'Content-Type must be application/json.');
  }
  return parseJsonBody(raw);
}

/**
 * A large body is read in a processing thread (decoding and parsing 2 MB holds a thread for ~10 ms), with its
 * transcript prepared in the same trip when the route takes one, and its Idempotency-Key fingerprint taken when
 * the request has a key (serialising and hashing 2 MB is as costly).
 */
function parseLarge(
  deps: Deps,
  bytes: Buffer,
  type: string | undefined,
  options: JsonBodyOptions,
): Promise<ParsedTranscriptBody> {
  if (type === undefined)
    throw new AppError('unsupported_media_type', 'Content-Type must be application/json.');
  return deps.processing.parseJson(bytes, options);
}

/** The body text other readers see: as sent, or the repaired object serialised (as sent if that fails). */
function textOf(bytes: Buffer, body: ParsedJsonBody): string {
  const raw = bytes.toString('utf8');
  if (raw.trim() === '') return '{}';
  if (!body.repaired) return raw;
  try {
    return JSON.stringify(body.value);
  } catch {
    return raw;
  }
}

function tooLarge(limit: number): AppError {
  return new AppError('payload_too_large', `The request body exceeds the limit of ${limit} bytes.`);
}

async function readLimited(stream: ReadableStream<Uint8Array>, limit: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
