import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/schema.ts';
import { toIso } from '../../lib/time.ts';

/** Attempts are counted in fixed windows of this length. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Attempts one client address may make for one email in a window (the owner elsewhere is unaffected). */
export const MAX_ATTEMPTS_PER_CLIENT = 5;
/** Attempts from all addresses for one email in a window, beyond which only the account's known addresses pass. */
export const MAX_ATTEMPTS_PER_ACCOUNT = 30;
/** An address stays known to an account this long after its last successful sign-in there. */
export const KNOWN_ADDRESS_TTL_MS = 30 * 24 * 3600_000;

const ACCOUNT_WIDE = '';

const digest = (value: string) => createHash('sha256').update(value).digest('hex');

/** What the tables store in place of an email (normalised before) and of a client address. */
export const subjectOf = (email: string) => digest(`email\u0000${email}`);
export const addressOf = (address: string) => digest(`address\u0000${address}`);

export type AttemptVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Adds one attempt to a counter of the current window and returns the count after it, in one statement. */
async function countAttempt(db: Db, subject: string, address: string, windowStart: string): Promise<number> {
  const row = await db
    .insertInto('sign_in_attempts')
    .values({ subject, address, window_start: windowStart, attempts: 1 })
    .onConflict((oc) =>
      oc
        .columns(['subject', 'address', 'window_start'])
        .doUpdateSet({ attempts: sql`sign_in_attempts.attempts + 1` }),
    )
    .returning('attempts')
    .executeTakeFirstOrThrow();
  return Number(row.attempts);
}

/**
 * Counts a sign-in attempt before the password is checked, so parallel attempts cannot all pass one read count:
 * first per email and client address (MAX_ATTEMPTS_PER_CLIENT), then, for attempts that pass it, per email
 * across addresses (MAX_ATTEMPTS_PER_ACCOUNT), a limit that does not apply to an address the account signed in
 * from within KNOWN_ADDRESS_TTL_MS: someone guessing from elsewhere cannot lock the owner out.
 */
export async function chargeSignInAttempt(
  db: Db,
  email: string,
  clientAddress: string,
  now = Date.now(),
): Promise<AttemptVerdict> {
  const windowStartMs = Math.floor(now / SIGN_IN_WINDOW_MS) * SIGN_IN_WINDOW_MS;
  const windowStart = toIso(windowStartMs);
  const retryAfterSeconds = Math.max(1, Math.ceil((windowStartMs + SIGN_IN_WINDOW_MS - now) / 1000));
  const subject = subjectOf(email);
  const address = addressOf(clientAddress);
  if ((await countAttempt(db, subject, address, windowStart)) > MAX_ATTEMPTS_PER_CLIENT) {
    return { allowed: false, retryAfterSeconds };
  }
  if ((await countAttempt(db, subject, ACCOUNT_WIDE, windowStart)) <= MAX_ATTEMPTS_PER_ACCOUNT) {
    return { allowed: true };
  }
  const known = await db
    .selectFrom('sign_in_known_addresses')
    .select('last_success_at')
    .where('subject', '=', subject)
    .where('address', '=', address)
    .where('last_success_at', '>', toIso(now - KNOWN_ADDRESS_TTL_MS))
    .executeTakeFirst();
  return known ? { allowed: true } : { allowed: false, retryAfterSeconds };
}

/** After a successful sign-in: this address's count starts over and the address is known to the account. */
export async function recordSignInSuccess(db: Db, email: string, clientAddress: string, now = Date.now()) {
  const subject = subjectOf(email);
  const address = addressOf(clientAddress);
  await db
    .deleteFrom('sign_in_attempts')
    .where('subject', '=', subject)
    .where('address', '=', address)
    .execute();
  await db
    .insertInto('sign_in_known_addresses')
    .values({ subject, address, last_success_at: toIso(now) })
    .onConflict((oc) => oc.columns(['subject', 'address']).doUpdateSet({ last_success_at: toIso(now) }))
    .execute();
}

/** A completed set-up or reset lifts every limit on the email: the person proved they hold the account. */
export async function clearSignInAttempts(db: Db, email: string) {
  await db.deleteFrom('sign_in_attempts').where('subject', '=', subjectOf(email)).execute();
}

/** Retention: counters of past windows and addresses not used for KNOWN_ADDRESS_TTL_MS go. */
export async function purgeSignInRecords(db: Db, now = Date.now()): Promise<number> {
  const windowStart = toIso(Math.floor(now / SIGN_IN_WINDOW_MS) * SIGN_IN_WINDOW_MS);
  const attempts = await db
    .deleteFrom('sign_in_attempts')
    .where('window_start', '<', windowStart)
    .executeTakeFirst();
  const known = await db
    .deleteFrom('sign_in_known_addresses')
    .where('last_success_at', '<=', toIso(now - KNOWN_ADDRESS_TTL_MS))
    .executeTakeFirst();
  return Number(attempts.numDeletedRows) + Number(known.numDeletedRows);
}
