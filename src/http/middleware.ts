import type { Context, MiddlewareHandler } from 'hono';
import type { Deps } from '../deps.ts';
import { AppError } from '../lib/errors.ts';
import { newId } from '../lib/ids.ts';
import { type ParsedJsonBody, parseJsonBody } from '../lib/parse-json-body.ts';
import type { AppEnv } from './context.ts';

/**
 * Bodies up to this size are parsed on the request's thread; larger ones in a processing thread (decoding and
 * parsing 2 MB holds a thread for ~10 ms, and so do serialising and hashing it for an Idempotency-Key).
 */
const INLINE_BODY_BYTES = 64 * 1024;

/** The Content-Type of every JSON response (docs/api.md, General). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Gives every request an id (`Request-Id` header, every log line), makes every JSON answer say
 * JSON_CONTENT_TYPE (Hono's `c.json` says no charset), and logs the outcome.
 */
export function requestContext(deps: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const requestId = newId('request');
    const log = deps.logger.child({ request_id: requestId });
    c.set('requestId', requestId);
    c.set('log', log);
    // Set before the handler runs, so the response is built with it (a header added afterwards forces
    // @hono/node-server off its fast path and costs a fifth of the throughput of small responses).
    c.header('Request-Id', requestId);
    const started = performance.now();
    await next();
    // The answer's headers are the ones set above (a Headers object), so changing one keeps that fast path.
    if (c.res.headers.get('content-type') === 'application/json') {
      c.res.headers.set('Content-Type', JSON_CONTENT_TYPE);
    }
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

/** A JSON body as read, with its Idempotency-Key fingerprint when the thread that parsed it took it. */
export interface ParsedBody extends ParsedJsonBody {
  fingerprint?: string;
}

/**
 * How a route parses its large bodies in a processing thread when it does more in the same trip (a transcript
 * prepared with its body): it takes the fingerprint when `fingerprintOf` is given, and sets on `c` what it
 * found besides the value.
 */
export type LargeJsonBodyParse = (
  c: Context,
  bytes: Buffer,
  fingerprintOf: string | undefined,
) => Promise<ParsedBody>;

/**
 * Reads a JSON body within a byte limit (413), refuses other media types (415) and malformed JSON (400),
 * so the route's validator only ever sees parsed JSON. A large body is parsed in a processing thread, by
 * `parseLarge` when the route gives one.
 */
export function jsonBody(
  maxBytes: (deps: Deps) => number,
  deps: Deps,
  parseLarge?: LargeJsonBodyParse,
): MiddlewareHandler<AppEnv> {
  const limit = maxBytes(deps);
  const large: LargeJsonBodyParse =
    parseLarge ?? ((_c, bytes, fingerprintOf) => deps.processing.parseJson(bytes, { fingerprintOf }));
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
    const body: ParsedBody =
      bytes.byteLength > INLINE_BODY_BYTES
        ? await parseInThread(c, bytes, type, fingerprintOf, large)
        : parseSmall(bytes, type);
    if (body.fingerprint !== undefined) c.set('bodyFingerprint', body.fingerprint);
    // The route's validator reads `c.req.json()`, which in Hono parses the body's text again: answer it with
    // the object read here instead. The text (`c.req.text()`) is decoded only if someone asks; when a lone
    // surrogate was repaired it is the repaired object serialised, so every reader sees the same strings.
    c.req.json = (() => Promise.resolve(body.value)) as typeof c.req.json;
    let text: Promise<string> | undefined;
    c.req.text = () => {
      text ??= Promise.resolve(textOf(bytes, body));
      return text;
    };
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

/** A large body needs its Content-Type as much as a small one with content does. */
function parseInThread(
  c: Context,
  bytes: Buffer,
  type: string | undefined,
  fingerprintOf: string | undefined,
  parse: LargeJsonBodyParse,
): Promise<ParsedBody> {
  if (type === undefined)
    throw new AppError('unsupported_media_type', 'Content-Type must be application/json.');
  return parse(c, bytes, fingerprintOf);
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

/** The JSON body of an ordinary operation: up to MAX_BODY_BYTES, parsed like any other. */
export function defaultJsonBody(deps: Deps): MiddlewareHandler<AppEnv> {
  return jsonBody((d) => d.config.maxBodyBytes, deps);
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
