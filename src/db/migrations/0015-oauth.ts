import type { Migration } from '../migrate.ts';

/**
 * (ext) Minutes' OAuth 2.1 authorization server for MCP clients (src/features/oauth). `oauth_records` holds what
 * the oidc-provider library persists (clients, interactions, sessions, grants, codes, access and refresh tokens)
 * keyed by the SHA-256 of the record's id, so a token is never stored in a usable form and any node can check it.
 * `oauth_connections` is Minutes' side of a grant: the account, the data space (live or test) chosen on the
 * consent page and the scopes granted, listed under Settings → Connected apps. `oauth_secrets` holds the keys
 * that sign the library's cookies, shared by every node.
 */
export const oauth: Migration = {
  version: 15,
  name: 'oauth',
  statements: ({ key, ts }) => [
    `CREATE TABLE oauth_records (
      model TEXT NOT NULL,
      id_hash ${key} NOT NULL,
      grant_id ${key},
      uid ${key},
      payload TEXT NOT NULL,
      expires_at ${ts},
      consumed_at ${ts},
      PRIMARY KEY (model, id_hash)
    )`,
    'CREATE INDEX oauth_records_grant ON oauth_records (grant_id)',
    'CREATE INDEX oauth_records_uid ON oauth_records (uid)',
    'CREATE INDEX oauth_records_expires ON oauth_records (expires_at)',
    `CREATE TABLE oauth_connections (
      grant_id ${key} PRIMARY KEY,
      account_id ${key} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      mode TEXT NOT NULL CHECK (mode IN ('live','test')),
      client_id TEXT NOT NULL,
      client_name TEXT NOT NULL,
      scopes TEXT NOT NULL,
      created_at ${ts} NOT NULL,
      last_used_at ${ts}
    )`,
    'CREATE INDEX oauth_connections_account ON oauth_connections (account_id, created_at)',
    `CREATE TABLE oauth_secrets (
      name TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      created_at ${ts} NOT NULL
    )`,
  ],
};
