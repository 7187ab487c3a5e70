import type { MiddlewareHandler } from 'hono';
import { sql } from 'kysely';
import type { Db } from '../db/schema.ts';
import { AppError } from '../lib/errors.ts';
import { toIso } from '../lib/time.ts';
import type { AppEnv, Deps } from './context.ts';

const WINDOW_MS = 60_000;

/**
 * Counts one request of a key in the current one-minute window, in the database so that every process
 * agrees, and returns the count after this request.
 */
export async function countRequest(
  db: Db,
  keyId: string,
  now: number,
): Promise<{ count: number; resetMs: number }> {
  const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
  const row = await db
    .insertInto('rate_limits')
    .values({ key_id: keyId, window_start: toIso(windowStart), count: 1 })
    .onConflict((oc) =>
      oc.columns(['key_id', 'window_start']).doUpdateSet({ count: sql`rate_limits.count + 1` }),
    )
    .returning('count')
    .executeTakeFirstOrThrow();
  const count = Number(row.count);
  if (count === 1) {
    // First request of a new window: drop this key's older windows so the table stays small.
    await db
      .deleteFrom('rate_limits')
      .where('key_id', '=', keyId)
      .where('window_start', '<', toIso(windowStart))
      .execute();
  }
  return { count, resetMs: windowStart + WINDOW_MS - now };
}

/** Per-key fixed-window limit with IETF RateLimit / RateLimit-Policy headers; 429 with Retry-After beyond. */
export function rateLimit(deps: Deps): MiddlewareHandler<AppEnv> {
  const limit = deps.config.rateLimitPerMinute;
  return async (c, next) => {
    if (limit === 0) return next();
    const { count, resetMs } = await countRequest(deps.db, c.get('actor').keyId, Date.now());
    const reset = Math.max(1, Math.ceil(resetMs / 1000));
    const headers = {
      'RateLimit-Policy': `"per-key";q=${limit};w=60`,
      RateLimit: `"per-key";r=${Math.max(0, limit - count)};t=${reset}`,
    };
    if (count > limit) {
      throw new AppError(
        'rate_limited',
        `Rate limit of ${limit} requests per minute exceeded; retry in ${reset} s.`,
        {
          headers: { ...headers, 'Retry-After': String(reset) },
        },
      );
    }
    // Before the handler, so the response is built with them (see requestContext).
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    await next();
  };
}
