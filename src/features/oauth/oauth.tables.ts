import type { Kysely } from 'kysely';
import type { Database, Db, Mode } from '../../db/schema.ts';

/** One record the OAuth library persists, under the SHA-256 of its id (migration 0015). */
export interface OAuthRecordsTable {
  model: string;
  id_hash: string;
  grant_id: string | null;
  uid: string | null;
  /** JSON of the library's payload, without the id itself. */
  payload: string;
  expires_at: string | null;
  consumed_at: string | null;
}

/** Minutes' side of a grant: whose data, which data space, which scopes. */
export interface OAuthConnectionsTable {
  grant_id: string;
  account_id: string;
  mode: Mode;
  client_id: string;
  client_name: string;
  /** Space-separated scopes granted on the consent page. */
  scopes: string;
  created_at: string;
  last_used_at: string | null;
}

export interface OAuthSecretsTable {
  name: string;
  value: string;
  created_at: string;
}

interface OAuthTables {
  oauth_records: OAuthRecordsTable;
  oauth_connections: OAuthConnectionsTable;
  oauth_secrets: OAuthSecretsTable;
}

export type OAuthDb = Kysely<Database & OAuthTables>;

export function oauthDb(db: Db): OAuthDb {
  return db as unknown as OAuthDb;
}
