import type { Db } from '../../db/schema.ts';

export type AccountRow = { id: string; email: string; name: string | null; created_at: string };

export const accountsRepo = {
  insert: (db: Db, row: AccountRow) => db.insertInto('accounts').values(row).execute(),
  findByEmail: (db: Db, email: string) =>
    db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst(),
  findById: (db: Db, id: string) =>
    db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst(),
  first: (db: Db) =>
    db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').limit(1).executeTakeFirst(),
  count: async (db: Db) =>
    Number(
      (
        await db
          .selectFrom('accounts')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
};
