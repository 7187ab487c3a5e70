import type { Db } from '../../../db/schema.ts';
import { searchDb } from '../search.tables.ts';

/** Index-wide settings (`search_meta`) and what the index holds. */
export const metaRepo = {
  /** How many notes the index holds, and how many of them another embedder built. */
  async indexSummary(db: Db, embedderId: string) {
    const row = await searchDb(db)
      .selectFrom('search_notes')
      .select((eb) => [
        eb.fn.countAll<number>().as('total'),
        eb.fn
          .count<number>(
            eb.case().when('embedder', 'is', null).then(1).when('embedder', '!=', embedderId).then(1).end(),
          )
          .as('stale'),
      ])
      .executeTakeFirstOrThrow();
    const ready = await db
      .selectFrom('notes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'ready')
      .executeTakeFirstOrThrow();
    return { indexed: Number(row.total), stale: Number(row.stale), ready: Number(ready.n) };
  },

  async getMeta(db: Db, key: string): Promise<string | undefined> {
    const row = await searchDb(db)
      .selectFrom('search_meta')
      .select('value')
      .where('key', '=', key)
      .executeTakeFirst();
    return row?.value;
  },

  setMeta: (db: Db, key: string, value: string, at: string) =>
    searchDb(db)
      .insertInto('search_meta')
      .values({ key, value, updated_at: at })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: at }))
      .execute(),
};
