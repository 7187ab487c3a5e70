import { hash, verify } from '@node-rs/argon2';
import { AppError } from '../../lib/errors.ts';

/**
 * argon2id with OWASP's first recommended setting (m = 19 MiB, t = 2, p = 1). @node-rs/argon2 hashes on the
 * libuv thread pool, so a sign-in never blocks the event loop.
 */
const OPTIONS = { algorithm: 2 /* Argon2id */, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 256;

/** 400 unless the password is 10–256 characters; anything else (spaces, any script) is allowed. */
export function checkPasswordRules(password: string): void {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH || length > MAX_PASSWORD_LENGTH) {
    throw new AppError(
      'parameter_invalid',
      `The password must be ${MIN_PASSWORD_LENGTH}–${MAX_PASSWORD_LENGTH} characters long.`,
      { param: 'password' },
    );
  }
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS as never);
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

let decoy: Promise<string> | undefined;

/** Spends the time of one verification, so an unknown email answers as slowly as a wrong password. */
export async function verifyDecoy(password: string): Promise<void> {
  decoy ??= hashPassword('decoy password that matches nothing');
  await verifyPassword(await decoy, password);
}
