import { sql } from 'kysely';
import type { Deps } from '../../deps.ts';
import { newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import { createApiKey } from '../api-keys/api-keys.service.ts';
import { createSetupLink } from '../users/users.service.ts';
import { accountsRepo } from './accounts.repo.ts';

/** The account a first start (or a first `keys create`) makes on an empty database. */
export const OWNER_EMAIL = 'owner@localhost';

/** Holds the bootstrap to one process when several start at once on PostgreSQL. */
const BOOTSTRAP_LOCK_ID = 7_355_609;

export interface FirstStart {
  accountId: string;
  email: string;
  liveKey: string;
  testKey: string;
  /** The token of the owner's one-time dashboard set-up link (valid 24 h). */
  setupToken: string;
}

/**
 * On an empty database (no account at all) creates the owner account and runs `then` in the same transaction;
 * returns its result, or null when an account already exists (or another process made the owner meanwhile).
 */
async function createOwnerIfNone<T>(
  deps: Deps,
  then: (inTransaction: Deps, accountId: string) => Promise<T>,
): Promise<T | null> {
  const { db, dialect } = deps;
  try {
    return await db.transaction().execute(async (trx) => {
      if (dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK_ID})`.execute(trx);
      if ((await accountsRepo.count(trx)) > 0) return null;
      // Inserted directly: `owner@localhost` is deliberately not an address createAccount would accept.
      const account = { id: newId('account'), email: OWNER_EMAIL, name: 'Owner', created_at: nowIso() };
      await accountsRepo.insert(trx, account);
      return await then({ ...deps, db: trx }, account.id);
    });
  } catch (err) {
    // Two SQLite processes racing on a fresh file: the loser hits the unique email; the winner made the owner.
    if ((await accountsRepo.count(db).catch(() => 0)) > 0) return null;
    throw err;
  }
}

/**
 * The first start: on an empty database creates the owner account with one live and one test key and a
 * dashboard set-up link, in one transaction, and returns them, the only time they exist in clear. Null on every
 * later start.
 */
export function bootstrapOwner(deps: Deps): Promise<FirstStart | null> {
  return createOwnerIfNone(deps, async (inTransaction, accountId) => {
    const live = await createApiKey(inTransaction, { accountId, mode: 'live', name: 'first start' });
    const test = await createApiKey(inTransaction, { accountId, mode: 'test', name: 'first start' });
    const setup = await createSetupLink(inTransaction, accountId);
    return { accountId, email: OWNER_EMAIL, liveKey: live.key, testKey: test.key, setupToken: setup.token };
  });
}

/**
 * `keys create` without `--account` before any start: makes the owner account (without the first start's two
 * keys, which that start then no longer prints) so the requested key has an account. True when it did.
 */
export async function createOwnerAccountIfNone(deps: Deps): Promise<boolean> {
  return (await createOwnerIfNone(deps, async () => true)) ?? false;
}
