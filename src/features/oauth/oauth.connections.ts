import type { Db } from '../../db/schema.ts';
import { deleteGrantRecords, hashOAuthId } from './oauth.records.ts';
import { type OAuthConnectionsTable, oauthDb } from './oauth.tables.ts';

/** Minutes' record of a grant made on the consent page. */
export async function insertConnection(db: Db, row: OAuthConnectionsTable): Promise<void> {
  await oauthDb(db).insertInto('oauth_connections').values(row).execute();
  // A client someone has connected no longer lapses as an unused registration.
  await oauthDb(db)
    .updateTable('oauth_records')
    .set({ expires_at: null })
    .where('model', '=', 'Client')
    .where('id_hash', '=', hashOAuthId(row.client_id))
    .execute();
}

export async function listConnections(db: Db, accountId: string): Promise<OAuthConnectionsTable[]> {
  return oauthDb(db)
    .selectFrom('oauth_connections')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('grant_id')
    .execute();
}

const TOUCH_INTERVAL_MS = 60_000;

/** last_used_at, written at most once a minute (the condition is in the statement, so across nodes too). */
export async function touchConnection(db: Db, grantId: string): Promise<void> {
  const now = new Date();
  const before = new Date(now.getTime() - TOUCH_INTERVAL_MS).toISOString();
  await oauthDb(db)
    .updateTable('oauth_connections')
    .set({ last_used_at: now.toISOString() })
    .where('grant_id', '=', grantId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', before)]))
    .execute();
}

/**
 * Disconnect: the connection row and every record of the grant (codes, access and refresh tokens) go in one
 * transaction, so no token of it works afterwards on any node. Only the account's own grants.
 */
export async function deleteConnection(db: Db, accountId: string, grantId: string): Promise<boolean> {
  return oauthDb(db)
    .transaction()
    .execute(async (trx) => {
      const deleted = await trx
        .deleteFrom('oauth_connections')
        .where('grant_id', '=', grantId)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return false;
      await deleteGrantRecords(trx, grantId);
      return true;
    });
}
