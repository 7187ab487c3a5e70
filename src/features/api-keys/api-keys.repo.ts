import type { ApiKeysTable, Db } from '../../db/schema.ts';

export const apiKeysRepo = {
  insert: (db: Db, row: ApiKeysTable) => db.insertInto('api_keys').values(row).execute(),
  findByHash: (db: Db, hash: string) =>
    db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst(),
  listByAccount: (db: Db, accountId: string) =>
    db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('created_at').execute(),
  revoke: (db: Db, id: string, at: string) =>
    db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst(),
  findById: (db: Db, id: string) =>
    db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst(),
  touch: (db: Db, id: string, at: string) =>
    db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute(),
};
