import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Db } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import type { AppEnv } from '../../http/context.ts';
import { JSON_CONTENT_TYPE } from '../../http/middleware.ts';
import { AppError } from '../../lib/errors.ts';
import { requestFingerprint, serializedBody } from '../../lib/request-fingerprint.ts';
import { nowIso, toIso } from '../../lib/time.ts';
import {
  completeKey,
  type KeySpace,
  responseSaver,
  type SaveIdempotentResponse,
} from './idempotency.repo.ts';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by the Idempotency-Key middleware: the saver for a given success status (idempotentResponse). */
    idempotency?: (status: number) => SaveIdempotentResponse;
  }
}

/** A first request that never finished (its process died) stops blocking its key after this long. */
const ABANDONED_MS = 5 * 60_000;
const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/**
 * What identifies "the same request": method, path and the parsed JSON body (or what `bodyOf` returns). A large
 * JSON body's fingerprint was taken by the thread that parsed it (jsonBody).
 */
async function fingerprint(c: Context<AppEnv>, bodyOf?: IdempotencyOptions['bodyOf']): Promise<string> {
  const taken = c.get('bodyFingerprint');
  if (taken !== undefined) return taken;
  const body = bodyOf ? await bodyOf(c) : await c.req.json().catch(() => null);
  const serialized = serializedBody(body) ?? (await c.req.text().catch(() => ''));
  return requestFingerprint(`${c.req.method} ${c.req.path}`, serialized);
}

export interface IdempotencyOptions {
  /** What stands for the body in the fingerprint, for bodies that are not JSON (a streamed upload: its hash). */
  bodyOf?: (c: Context<AppEnv>) => unknown;
}

/**
 * The saver the route passes to its service, bound to the status the route answers with: the service stores
 * the answer in the transaction of the change (crash-safe). Undefined when the request has no key.
 */
export function idempotentResponse(c: Context<AppEnv>, status: number): SaveIdempotentResponse | undefined {
  return c.get('idempotency')?.(status);
}

/**
 * Honors `Idempotency-Key` (Stripe semantics): a replay returns the first response; the same key with a
 * different request is 422; a replay while the first is still running is 409. Only successful responses are
 * stored, so a request that failed validation can be corrected and retried with the same key. A route whose
 * service takes the saver (`idempotentResponse`) has the answer stored in the change's own transaction; for
 * any other the answer is stored after the handler. A stored answer whose object was deleted since replays as
 * 404. Keys are kept for RETENTION_IDEMPOTENCY_HOURS (the retention sweep removes older ones).
 */
export function idempotent(deps: Deps, options: IdempotencyOptions = {}): MiddlewareHandler<AppEnv> {
  const { db } = deps;
  return async (c, next) => {
    const key = c.req.header('idempotency-key');
    if (key === undefined) return next();
    if (!KEY_RE.test(key)) {
      throw new AppError('parameter_invalid', 'Idempotency-Key must be 1–255 printable ASCII characters.', {
        param: 'Idempotency-Key',
      });
    }
    const actor = c.get('actor');
    const space: KeySpace = { account_id: actor.accountId, mode: actor.mode, key };
    const hash = await fingerprint(c, options.bodyOf);
    const claimed = await claim(db, space, hash, deps.config.retention.idempotencyMs);
    if (!claimed) {
      const row = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('account_id', '=', space.account_id)
        .where('mode', '=', space.mode)
        .where('key', '=', key)
        .executeTakeFirstOrThrow();
      if (row.response_status === null) {
        throw new AppError(
          'idempotency_key_in_use',
          'A request with this Idempotency-Key is still being processed.',
        );
      }
      if (row.request_hash !== hash) {
        throw new AppError(
          'idempotency_key_reused',
          'This Idempotency-Key was used with a different request; use a new key for a new request.',
        );
      }
      c.header('Idempotent-Replayed', 'true');
      if (row.response_body === null) {
        throw new AppError(
          'resource_not_found',
          'The object this request created has since been deleted; its stored response is gone with it.',
        );
      }
      return c.body(row.response_body, row.response_status as ContentfulStatusCode, {
        'Content-Type': JSON_CONTENT_TYPE,
      });
    }
    let stored = false;
    c.set('idempotency', (status) =>
      responseSaver(space, hash, status, () => {
        stored = true;
      }),
    );
    try {
      await next();
      const ok = c.res.status >= 200 && c.res.status < 300 && !c.error;
      if (ok && !stored) {
        await completeKey(db, space, hash, { status: c.res.status, body: await c.res.clone().text() });
        stored = true;
      }
      // Saved in a transaction that then rolled back: the key is still in progress, and freed below.
      if (!ok) stored = false;
    } finally {
      if (!stored) {
        await db
          .deleteFrom('idempotency_keys')
          .where('account_id', '=', space.account_id)
          .where('mode', '=', space.mode)
          .where('key', '=', key)
          .where('response_status', 'is', null)
          .execute();
      }
    }
  };
}

/** Takes the key for this request: a new key, an expired one, or one abandoned by a crashed request. */
async function claim(db: Db, space: KeySpace, hash: string, retentionMs: number) {
  const now = Date.now();
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({
      ...space,
      request_hash: hash,
      response_status: null,
      response_body: null,
      resource_id: null,
      created_at: nowIso(),
    })
    .onConflict((oc) => oc.columns(['account_id', 'mode', 'key']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return true;
  const retaken = await db
    .updateTable('idempotency_keys')
    .set({
      request_hash: hash,
      response_status: null,
      response_body: null,
      resource_id: null,
      created_at: nowIso(),
    })
    .where('account_id', '=', space.account_id)
    .where('mode', '=', space.mode)
    .where('key', '=', space.key)
    .where((eb) =>
      eb.or([
        eb('created_at', '<', toIso(now - retentionMs)),
        eb.and([eb('response_status', 'is', null), eb('created_at', '<', toIso(now - ABANDONED_MS))]),
      ]),
    )
    .executeTakeFirst();
  return Number(retaken.numUpdatedRows) > 0;
}
