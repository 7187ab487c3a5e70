import type { Db, SessionsTable, UsersTable } from '../../db/schema.ts';

export const usersRepo = {
  insert: (db: Db, row: UsersTable) => db.insertInto('users').values(row).execute(),
  findById: (db: Db, id: string) =>
    db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst(),
  findByEmail: (db: Db, email: string) =>
    db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst(),
  findByAccount: (db: Db, accountId: string) =>
    db.selectFrom('users').selectAll().where('account_id', '=', accountId).executeTakeFirst(),
  setPassword: (db: Db, id: string, passwordHash: string, now: string) =>
    db
      .updateTable('users')
      .set({ password_hash: passwordHash, updated_at: now })
      .where('id', '=', id)
      .execute(),

  insertSetupLink: (
    db: Db,
    row: { token_hash: string; user_id: string; created_at: string; expires_at: string },
  ) =>
    db
      .insertInto('setup_links')
      .values({ ...row, used_at: null })
      .execute(),
  findSetupLink: (db: Db, tokenHash: string) =>
    db.selectFrom('setup_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst(),
  /** Marks the link used, only if it still was unused: true when this call did. */
  useSetupLink: async (db: Db, tokenHash: string, now: string) =>
    Number(
      (
        await db
          .updateTable('setup_links')
          .set({ used_at: now })
          .where('token_hash', '=', tokenHash)
          .where('used_at', 'is', null)
          .executeTakeFirst()
      ).numUpdatedRows,
    ) === 1,
  deleteOtherSetupLinks: (db: Db, userId: string, keep: string) =>
    db.deleteFrom('setup_links').where('user_id', '=', userId).where('token_hash', '!=', keep).execute(),

  insertSession: (db: Db, row: SessionsTable) => db.insertInto('sessions').values(row).execute(),
  findSession: (db: Db, tokenHash: string) =>
    db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst(),
  touchSession: (db: Db, tokenHash: string, now: string) =>
    db.updateTable('sessions').set({ last_seen_at: now }).where('token_hash', '=', tokenHash).execute(),
  setSessionMode: (db: Db, tokenHash: string, mode: SessionsTable['mode']) =>
    db.updateTable('sessions').set({ mode }).where('token_hash', '=', tokenHash).execute(),
  deleteSession: (db: Db, tokenHash: string) =>
    db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute(),
  deleteSessionsOf: (db: Db, userId: string) =>
    db.deleteFrom('sessions').where('user_id', '=', userId).execute(),
};
