import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import { type AccountRow, accountsRepo } from './accounts.repo.ts';

const Email = z.email();

/** Creates an account; emails are unique (case-insensitively, stored lower-cased). */
export async function createAccount(
  deps: Deps,
  input: { email: string; name?: string },
): Promise<AccountRow> {
  const email = input.email.trim().toLowerCase();
  if (!Email.safeParse(email).success) {
    throw new AppError('parameter_invalid', `'${input.email}' is not a valid email address.`, {
      param: 'email',
    });
  }
  if (await accountsRepo.findByEmail(deps.db, email)) {
    throw new AppError('parameter_invalid', `An account with email '${email}' already exists.`, {
      param: 'email',
    });
  }
  const row: AccountRow = { id: newId('account'), email, name: input.name ?? null, created_at: nowIso() };
  await accountsRepo.insert(deps.db, row);
  return row;
}

/** The account with this id, or undefined. */
export function findAccount(deps: Deps, id: string): Promise<AccountRow | undefined> {
  return accountsRepo.findById(deps.db, id);
}

/** The account named by email, or the first (owner) account when no email is given. */
export async function resolveAccount(deps: Deps, email?: string): Promise<AccountRow> {
  const row = email
    ? await accountsRepo.findByEmail(deps.db, email.trim().toLowerCase())
    : await accountsRepo.first(deps.db);
  if (!row) {
    throw new AppError(
      'resource_not_found',
      email ? `No account with email '${email}'.` : 'There is no account yet: start the service once.',
    );
  }
  return row;
}
