import { hash, verify } from '@node-rs/argon2';
import { AppError } from '../../lib/errors.ts';

/**
 * argon2id with OWASP's first recommended setting (m = 19 MiB, t = 2, p = 1). @node-rs/argon2 hashes on the
 * libuv thread pool, so a sign-in never blocks the event loop.
 */
const OPTIONS = { algorithm: 2 /* Argon2id */, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * Hashes running at once: libuv's pool (4 threads by default) also serves file
 * reads and DNS, so sign-ins, which anyone can send, never take more than half of it.
 */
export const MAX_CONCURRENT_HASHES = 2;
/** Hashes waiting for a slot; beyond this a sign-in is answered 503 at once instead of queueing without end. */
export const MAX_QUEUED_HASHES = 64;

let running = 0;
let peak = 0;
const waiting: (() => void)[] = [];

/** Runs one hash within the cap; throws `unavailable` (503) when the queue is full. */
async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT_HASHES) {
    if (waiting.length >= MAX_QUEUED_HASHES) {
      throw new AppError('unavailable', 'Too many sign-ins are being checked right now. Try again shortly.');
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running++;
  }
  peak = Math.max(peak, running);
  try {
    return await work();
  } finally {
    const nextInLine = waiting.shift();
    // The slot passes straight to the next in line, so `running` never dips and no newcomer overtakes it.
    if (nextInLine) nextInLine();
    else running--;
  }
}

/** The most hashes that ran at once since the last reset (for tests and the isolation bench). */
export function hashingPeak(reset = false): number {
  const value = peak;
  if (reset) peak = running;
  return value;
}

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
  return withHashSlot(() => hash(password, OPTIONS as never));
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await withHashSlot(() => verify(stored, password));
  } catch (err) {
    if (err instanceof AppError) throw err;
    return false;
  }
}

let decoy: Promise<string> | undefined;

/** Spends the time of one verification, so an unknown email answers as slowly as a wrong password. */
export async function verifyDecoy(password: string): Promise<void> {
  decoy ??= hashPassword('decoy password that matches nothing').catch((err) => {
    decoy = undefined;
    throw err;
  });
  await verifyPassword(await decoy, password);
}
