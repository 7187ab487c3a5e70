import type { Context, MiddlewareHandler } from 'hono';
import { sql } from 'kysely';
import type { Db } from '../db/schema.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../lib/errors.ts';
import { toIso } from '../lib/time.ts';
import type { AppEnv } from './context.ts';

const WINDOW_MS = 60_000;

/**
 * Counts one request of a key in the current one-minute window, in the database so that every process
 * agrees, and returns the count after this request.
 */
export async function countRequest(
  db: Db,
  keyId: string,
  now: number,
  weight = 1,
): Promise<{ count: number; resetMs: number }> {
  const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
  const row = await db
    .insertInto('rate_limits')
    .values({ key_id: keyId, window_start: toIso(windowStart), count: weight })
    .onConflict((oc) =>
      oc.columns(['key_id', 'window_start']).doUpdateSet({ count: sql`rate_limits.count + ${weight}` }),
    )
    .returning('count')
    .executeTakeFirstOrThrow();
  const count = Number(row.count);
  if (count === weight) {
    // First request of a new window: drop this key's older windows so the table stays small.
    await db
      .deleteFrom('rate_limits')
      .where('key_id', '=', keyId)
      .where('window_start', '<', toIso(windowStart))
      .execute();
  }
  return { count, resetMs: windowStart + WINDOW_MS - now };
}

/**
 * Counts `weight` requests of the key (1 for a REST request; an MCP batch of N messages counts N) and returns
 * the RateLimit / RateLimit-Policy headers to send; throws 429 (`rate_limited`, with Retry-After) beyond the
 * limit. Null when rate limiting is off.
 */
export async function chargeRateLimit(
  deps: Deps,
  keyId: string,
  weight = 1,
): Promise<Record<string, string> | null> {
  const limit = deps.config.rateLimitPerMinute;
  if (limit === 0) return null;
  const { count, resetMs } = await countRequest(deps.db, keyId, Date.now(), weight);
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
  return headers;
}

/**
 * Per-key fixed-window limit with IETF RateLimit / RateLimit-Policy headers; 429 with Retry-After beyond.
 * `keyOf` names the caller's key, which authentication has resolved before.
 */
export function rateLimit(deps: Deps, keyOf: (c: Context<AppEnv>) => string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const headers = await chargeRateLimit(deps, keyOf(c));
    // Before the handler, so the response is built with them (see requestContext).
    for (const [name, value] of Object.entries(headers ?? {})) c.header(name, value);
    await next();
  };
}
