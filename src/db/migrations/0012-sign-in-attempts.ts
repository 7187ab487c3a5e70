import type { Migration } from '../migrate.ts';

/**
 * Sign-in attempt limiting that holds under parallel attempts and cannot be turned against the owner
 * (src/features/users/sign-in-limits.ts): attempts are counted per fixed window, per email and client address
 * (address = the SHA-256 of both) and per email alone (address ''), with one upsert that increments and returns
 * the count before the password is hashed; addresses that signed in to an account are remembered so the
 * account-wide limit does not lock its owner out. Emails and addresses are stored only as SHA-256 digests.
 */
export const signInAttempts: Migration = {
  version: 12,
  name: 'sign-in-attempts',
  statements: ({ key, ts }) => [
    'DROP TABLE sign_in_failures',
    `CREATE TABLE sign_in_attempts (
      subject ${key} NOT NULL,
      address ${key} NOT NULL,
      window_start ${ts} NOT NULL,
      attempts INTEGER NOT NULL,
      PRIMARY KEY (subject, address, window_start)
    )`,
    'CREATE INDEX sign_in_attempts_window ON sign_in_attempts (window_start)',
    `CREATE TABLE sign_in_known_addresses (
      subject ${key} NOT NULL,
      address ${key} NOT NULL,
      last_success_at ${ts} NOT NULL,
      PRIMARY KEY (subject, address)
    )`,
    'CREATE INDEX sign_in_known_addresses_last ON sign_in_known_addresses (last_success_at)',
  ],
};
