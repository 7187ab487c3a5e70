import type { Mode, SessionsTable, UsersTable } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { nowIso, toIso } from '../../lib/time.ts';
import { createAccount, findAccount } from '../accounts/accounts.service.ts';
import { checkPasswordRules, hashPassword, verifyDecoy, verifyPassword } from './passwords.ts';
import { chargeSignInAttempt, clearSignInAttempts, recordSignInSuccess } from './sign-in-limits.ts';
import { hashToken, isToken, newToken } from './tokens.ts';
import { usersRepo } from './users.repo.ts';

/** A set-up link is valid this long. */
export const SETUP_LINK_TTL_MS = 24 * 3600_000;
/** A session ends after this long without a request… */
export const SESSION_IDLE_MS = 24 * 3600_000;
/** …and this long after sign-in in any case. */
export const SESSION_MAX_MS = 14 * 24 * 3600_000;
/** Sessions are touched at most this often (one write a minute, not one per request). */
const TOUCH_INTERVAL_MS = 60_000;

/** The account's user, created (without a password) on first need; its email is the account's. */
export async function ensureUser(deps: Deps, accountId: string): Promise<UsersTable> {
  const { db } = deps;
  const existing = await usersRepo.findByAccount(db, accountId);
  if (existing) return existing;
  const account = await findAccount(deps, accountId);
  if (!account) throw new AppError('resource_not_found', `No account with id '${accountId}'.`);
  const now = nowIso();
  const row: UsersTable = {
    id: newId('user'),
    account_id: accountId,
    email: account.email.toLowerCase(),
    password_hash: null,
    created_at: now,
    updated_at: now,
  };
  await usersRepo.insert(db, row);
  return row;
}

/** A one-time link (valid 24 h) to choose the account user's password; returns its token, shown only once. */
export async function createSetupLink(
  deps: Deps,
  accountId: string,
): Promise<{ token: string; expiresAt: string }> {
  const user = await ensureUser(deps, accountId);
  const token = newToken();
  const now = Date.now();
  const expiresAt = toIso(now + SETUP_LINK_TTL_MS);
  await usersRepo.insertSetupLink(deps.db, {
    token_hash: hashToken(token),
    user_id: user.id,
    created_at: toIso(now),
    expires_at: expiresAt,
  });
  return { token, expiresAt };
}

/** The URL a set-up link token is opened at. */
export function setupUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/setup?token=${token}`;
}

/** The user a set-up link is for, or null when the token is unknown, used or expired. */
export async function findSetupLinkUser(deps: Deps, token: string | undefined): Promise<UsersTable | null> {
  if (!isToken(token)) return null;
  const link = await usersRepo.findSetupLink(deps.db, hashToken(token));
  if (!link || link.used_at || Date.parse(link.expires_at) <= Date.now()) return null;
  return (await usersRepo.findById(deps.db, link.user_id)) ?? null;
}

/**
 * Sets the password through a set-up link: the link is used up, the user's other links and all their sessions
 * end (a reset signs every browser out), and the sign-in attempt limits on the email are lifted. Returns the user.
 */
export async function completeSetup(
  deps: Deps,
  input: { token: string; password: string },
): Promise<UsersTable> {
  const { token, password } = input;
  checkPasswordRules(password);
  const passwordHash = await hashPassword(password);
  return deps.db.transaction().execute(async (trx) => {
    const user = await findSetupLinkUser({ ...deps, db: trx }, token);
    const tokenHash = hashToken(token);
    if (!user || !(await usersRepo.useSetupLink(trx, tokenHash, nowIso()))) {
      throw new AppError('parameter_invalid', 'This set-up link is invalid, used or expired.', {
        param: 'token',
      });
    }
    await usersRepo.setPassword(trx, user.id, passwordHash, nowIso());
    await usersRepo.deleteOtherSetupLinks(trx, user.id, tokenHash);
    await usersRepo.deleteSessionsOf(trx, user.id);
    await clearSignInAttempts(trx, user.email);
    return user;
  });
}

export type SignInResult =
  | { ok: true; user: UsersTable }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'locked'; retryAfterSeconds: number };

/**
 * Checks email and password from a client address. The attempt is counted before the password is hashed
 * (sign-in-limits.ts: per email and address, and per email from addresses the account has not signed in from),
 * so parallel attempts cannot outrun the limit; a locked attempt is refused without hashing, right password or
 * not. An unknown email costs the same hashing time as a wrong password.
 */
export async function signIn(
  deps: Deps,
  input: { email: string; password: string; clientAddress: string },
): Promise<SignInResult> {
  const { db } = deps;
  const { password, clientAddress } = input;
  const email = input.email.trim().toLowerCase().slice(0, 320);
  if (email) {
    const verdict = await chargeSignInAttempt(db, email, clientAddress);
    if (!verdict.allowed)
      return { ok: false, reason: 'locked', retryAfterSeconds: verdict.retryAfterSeconds };
  }
  const user = email && password.length <= 4096 ? await usersRepo.findByEmail(db, email) : undefined;
  let ok = false;
  if (user?.password_hash) ok = await verifyPassword(user.password_hash, password);
  else await verifyDecoy(password.slice(0, 4096));
  if (!ok || !user) return { ok: false, reason: 'invalid' };
  await recordSignInSuccess(db, email, clientAddress);
  return { ok: true, user };
}

/** Starts a session in the live data space; returns the cookie's token (the row stores only its hash). */
export async function startSession(deps: Deps, user: UsersTable): Promise<string> {
  const token = newToken();
  const now = Date.now();
  await usersRepo.insertSession(deps.db, {
    token_hash: hashToken(token),
    user_id: user.id,
    account_id: user.account_id,
    mode: 'live',
    created_at: toIso(now),
    last_seen_at: toIso(now),
    expires_at: toIso(now + SESSION_MAX_MS),
  });
  return token;
}

/** The live session of a cookie token, or null (an expired one is deleted). Touches it at most once a minute. */
export async function resolveSession(deps: Deps, token: string | undefined): Promise<SessionsTable | null> {
  const { db } = deps;
  if (!isToken(token)) return null;
  const tokenHash = hashToken(token);
  const session = await usersRepo.findSession(db, tokenHash);
  if (!session) return null;
  const now = Date.now();
  const lastSeen = Date.parse(session.last_seen_at);
  if (Date.parse(session.expires_at) <= now || now - lastSeen >= SESSION_IDLE_MS) {
    await usersRepo.deleteSession(db, tokenHash);
    return null;
  }
  if (now - lastSeen >= TOUCH_INTERVAL_MS) await usersRepo.touchSession(db, tokenHash, toIso(now));
  return session;
}

/** The live session of a cookie token and its user, or null. */
export async function resolveSessionUser(
  deps: Deps,
  token: string | undefined,
): Promise<{ session: SessionsTable; user: UsersTable } | null> {
  const session = await resolveSession(deps, token);
  const user = session ? await usersRepo.findById(deps.db, session.user_id) : undefined;
  return session && user ? { session, user } : null;
}

/** Switches the session of this cookie token to a data space. */
export function setSessionMode(deps: Deps, token: string, mode: Mode) {
  return usersRepo.setSessionMode(deps.db, hashToken(token), mode);
}

/** Signs the session of this cookie token out. */
export function endSession(deps: Deps, token: string) {
  return usersRepo.deleteSession(deps.db, hashToken(token));
}

/**
 * A new account and the one-time link (24 h) to choose its dashboard password, in one transaction
 * (`minutes accounts create`): an account is never left without a way to sign in.
 */
export async function createAccountWithSetupLink(deps: Deps, input: { email: string; name?: string }) {
  return deps.db.transaction().execute(async (trx) => {
    const inTransaction = { ...deps, db: trx };
    const account = await createAccount(inTransaction, input);
    return { account, link: await createSetupLink(inTransaction, account.id) };
  });
}
