import { inSpace } from '../../../db/in-space.ts';
import type { Db } from '../../../db/schema.ts';
import { randomBase62 } from '../../../lib/ids.ts';
import { nowIso } from '../../../lib/time.ts';
import { searchDb } from '../search.tables.ts';
import type { Space } from './search-rows.ts';

/** Stored vectors: note vectors (the exact store, refills of the vector table) and chunk vectors (the second stage of vector search). */
export const vectorsRepo = {
  /**
   * The space's note-vector version: a `search_meta` row that every write of the space's `search_notes` replaces in
   * its own transaction, so one primary-key read tells the exact store whether its cached vectors are current
   * (an aggregate over the space reads every row: 50 ms at 10,000 notes on PostgreSQL). '' before the first write.
   */
  async noteVectorsVersion(db: Db, space: Space): Promise<string> {
    const row = await searchDb(db)
      .selectFrom('search_meta')
      .select('value')
      .where('key', '=', notesVersionKey(space))
      .executeTakeFirst();
    return row?.value ?? '';
  },

  /** Gives the space a new note-vector version; called by every writer of `search_notes`, in its transaction. */
  bumpNoteVectorsVersion: async (db: Db, space: Space): Promise<void> => {
    const value = randomBase62(16);
    const at = nowIso();
    await searchDb(db)
      .insertInto('search_meta')
      .values({ key: notesVersionKey(space), value, updated_at: at })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: at }))
      .execute();
  },

  /** How many note vectors the space has from `embedderId`, and the newest indexed_at: changes when any is written. */
  async noteEmbeddingsStamp(db: Db, space: Space, embedderId: string) {
    const row = await searchDb(db)
      .selectFrom('search_notes')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('indexed_at').as('newest')])
      .where(inSpace(space))
      .where('embedder', '=', embedderId)
      .where('embedding', 'is not', null)
      .executeTakeFirstOrThrow();
    const count = Number(row.n);
    return { count, value: `${count}/${String(row.newest ?? '')}` };
  },

  /** How many notes have a vector made by `embedderId`. */
  async noteVectorCount(db: Db, embedderId: string): Promise<number> {
    const row = await searchDb(db)
      .selectFrom('search_notes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('embedder', '=', embedderId)
      .where('embedding', 'is not', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /**
   * Note vectors made by `embedderId`, in note id order after `afterNoteId`: of one space (a page of the exact
   * search) or of every space (a refill of the vector table).
   */
  async noteVectorsAfter(db: Db, embedderId: string, afterNoteId: string, limit: number, space?: Space) {
    let query = searchDb(db)
      .selectFrom('search_notes')
      .select(['note_id', 'account_id', 'mode', 'embedding'])
      .where('embedder', '=', embedderId)
      .where('embedding', 'is not', null)
      .where('note_id', '>', afterNoteId);
    if (space) query = query.where(inSpace(space));
    const rows = await query.orderBy('note_id').limit(limit).execute();
    return rows.map((r) => ({ ...r, embedding: r.embedding! }));
  },

  /**
   * Chunk vectors of some notes of the space, to compare each chunk with the query. Looked up by note id only
   * (the space is checked on the rows): with the space in the WHERE clause SQLite may scan the whole space.
   */
  async chunkEmbeddings(db: Db, space: Space, noteIds: readonly string[], embedderId: string) {
    const out: { id: number; note_id: string; embedding: Uint8Array }[] = [];
    for (let i = 0; i < noteIds.length; i += 500) {
      const rows = await searchDb(db)
        .selectFrom('search_chunks')
        .select(['id', 'note_id', 'account_id', 'mode', 'embedder', 'embedding'])
        .where('note_id', 'in', noteIds.slice(i, i + 500))
        .execute();
      for (const r of rows) {
        if (r.account_id !== space.accountId || r.mode !== space.mode) continue;
        if (r.embedder !== embedderId || !r.embedding) continue;
        out.push({ id: Number(r.id), note_id: r.note_id, embedding: r.embedding });
      }
    }
    return out;
  },
};

const notesVersionKey = (space: Space) => `notes-version:${space.accountId}:${space.mode}`;
