import type { Migration } from '../migrate.ts';

/**
 * The dashboard's people and their sign-ins (src/features/users): one user per account (its email, an argon2id
 * password hash), one-time set-up links (only their SHA-256 is stored), sessions as rows (so any node of a
 * scaled-out deployment accepts them; only the SHA-256 of the cookie's token is stored) and failed sign-ins
 * counted per email for brute-force protection.
 */
export const dashboardUsers: Migration = {
  version: 10,
  name: 'dashboard-users',
  statements: ({ key, ts }) => [
    `CREATE TABLE users (
      id ${key} PRIMARY KEY,
      account_id ${key} NOT NULL UNIQUE REFERENCES accounts(id) ON DELETE CASCADE,
      email TEXT NOT NULL UNIQUE,
      password_hash TEXT,
      created_at ${ts} NOT NULL,
      updated_at ${ts} NOT NULL
    )`,
    `CREATE TABLE setup_links (
      token_hash ${key} PRIMARY KEY,
      user_id ${key} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      created_at ${ts} NOT NULL,
      expires_at ${ts} NOT NULL,
      used_at ${ts}
    )`,
    'CREATE INDEX setup_links_user ON setup_links (user_id)',
    `CREATE TABLE sessions (
      token_hash ${key} PRIMARY KEY,
      user_id ${key} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      account_id ${key} NOT NULL,
      mode TEXT NOT NULL CHECK (mode IN ('live','test')),
      created_at ${ts} NOT NULL,
      last_seen_at ${ts} NOT NULL,
      expires_at ${ts} NOT NULL
    )`,
    'CREATE INDEX sessions_user ON sessions (user_id)',
    `CREATE TABLE sign_in_failures (
      email TEXT PRIMARY KEY,
      failures INTEGER NOT NULL,
      window_start ${ts} NOT NULL
    )`,
  ],
};
