import { inSpace } from '../../db/in-space.ts';
import { INSERT_BATCH, insertInBatches } from '../../db/insert-in-batches.ts';
import type { ActionItemsTable, Db, HighlightsTable } from '../../db/schema.ts';
import type { Space } from '../../lib/space.ts';

/** Reads and writes of imported notes beyond what notesRepo does. */
export const importsRepo = {
  /** The note of this space imported from that source item, if any. */
  findBySource: (db: Db, space: Space, source: string, sourceId: string) =>
    db
      .selectFrom('notes')
      .select('id')
      .where(inSpace(space))
      .where('source', '=', source)
      .where('source_id', '=', sourceId)
      .executeTakeFirst(),

  /** Where a note id is taken, if it is: its space tells "this note already" from "another account's". */
  findById: (db: Db, id: string) =>
    db.selectFrom('notes').select(['id', 'account_id', 'mode']).where('id', '=', id).executeTakeFirst(),

  /** Whether any recording has this id. */
  recordingIdTaken: async (db: Db, id: string) =>
    (await db.selectFrom('recordings').select('id').where('id', '=', id).executeTakeFirst()) !== undefined,

  /** Whether a recording's row holds this audio storage key. */
  audioKeyStored: async (db: Db, key: string) =>
    (await db.selectFrom('recordings').select('id').where('storage_key', '=', key).executeTakeFirst()) !==
    undefined,

  /** Ids among these that are taken, by any note's action item or highlight. */
  async takenPartIds(db: Db, actionItemIds: string[], highlightIds: string[]): Promise<Set<string>> {
    const taken = new Set<string>();
    const asked = [
      ['action_items', actionItemIds],
      ['highlights', highlightIds],
    ] as const;
    for (const [table, ids] of asked) {
      for (let i = 0; i < ids.length; i += INSERT_BATCH) {
        const rows = await db
          .selectFrom(table)
          .select('id')
          .where('id', 'in', ids.slice(i, i + INSERT_BATCH))
          .execute();
        for (const r of rows) taken.add(r.id);
      }
    }
    return taken;
  },

  insertActionItems: (db: Db, rows: readonly ActionItemsTable[]) =>
    insertInBatches(rows, (batch) => db.insertInto('action_items').values(batch).execute()),

  insertHighlights: (db: Db, rows: readonly HighlightsTable[]) =>
    insertInBatches(rows, (batch) => db.insertInto('highlights').values(batch).execute()),

  /** The action items and highlights a note holds (for an imported note: what its source extracted). */
  async extractions(db: Db, noteId: string) {
    const [actionItems, highlights] = await Promise.all([
      db
        .selectFrom('action_items')
        .selectAll()
        .where('note_id', '=', noteId)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
      db.selectFrom('highlights').selectAll().where('note_id', '=', noteId).execute(),
    ]);
    return { actionItems, highlights };
  },
};
