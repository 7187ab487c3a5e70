import type { Db } from '../../../db/schema.ts';
import { searchDb } from '../search.tables.ts';
import type { NewChunkRow, Space } from './search-rows.ts';
import { BATCH } from './sql-helpers.ts';
import { vectorsRepo } from './vectors.repo.ts';

/** Writes of a note's index entries, and which notes need them. */
export const indexWritesRepo = {
  /** Chunks a note has now: their text hashes and embeddings, to reuse what did not change. */
  existingEmbeddings: (db: Db, noteId: string) =>
    searchDb(db)
      .selectFrom('search_chunks')
      .select(['text_hash', 'embedding', 'embedder'])
      .where('note_id', '=', noteId)
      .execute(),

  /** Removes the note's chunks and index record; returns the removed chunk ids (for the vector table). */
  async deleteNote(db: Db, noteId: string): Promise<number[]> {
    const sdb = searchDb(db);
    const rows = await sdb.selectFrom('search_chunks').select('id').where('note_id', '=', noteId).execute();
    await sdb.deleteFrom('search_chunks').where('note_id', '=', noteId).execute();
    const removed = await sdb
      .deleteFrom('search_notes')
      .where('note_id', '=', noteId)
      .returning(['account_id', 'mode'])
      .executeTakeFirst();
    if (removed)
      await vectorsRepo.bumpNoteVectorsVersion(db, { accountId: removed.account_id, mode: removed.mode });
    return rows.map((r) => Number(r.id));
  },

  /** Inserts the note's chunks and returns their ids, in the order given. */
  async insertChunks(db: Db, space: Space, noteId: string, rows: readonly NewChunkRow[]): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < rows.length; i += BATCH) {
      const inserted = await searchDb(db)
        .insertInto('search_chunks')
        .values(
          rows.slice(i, i + BATCH).map((r) => ({
            ...r,
            note_id: noteId,
            account_id: space.accountId,
            mode: space.mode,
          })),
        )
        .returning(['id', 'position'])
        .execute();
      // RETURNING order is not guaranteed; positions are unique within a note.
      const byPosition = new Map(inserted.map((r) => [Number(r.position), Number(r.id)]));
      for (const r of rows.slice(i, i + BATCH)) ids.push(byPosition.get(r.position)!);
    }
    return ids;
  },

  async markIndexed(
    db: Db,
    space: Space,
    noteId: string,
    values: { embedder: string | null; embedding: Uint8Array | null; chunkCount: number; at: string },
  ) {
    await searchDb(db)
      .insertInto('search_notes')
      .values({
        note_id: noteId,
        account_id: space.accountId,
        mode: space.mode,
        embedder: values.embedder,
        embedding: values.embedding,
        chunk_count: values.chunkCount,
        indexed_at: values.at,
      })
      .onConflict((oc) =>
        oc.column('note_id').doUpdateSet({
          embedder: values.embedder,
          embedding: values.embedding,
          chunk_count: values.chunkCount,
          indexed_at: values.at,
        }),
      )
      .execute();
    await vectorsRepo.bumpNoteVectorsVersion(db, space);
  },

  /** Processed notes of a space that are not in the index yet (e.g. a seeded test space). */
  unindexedNotes: (db: Db, space: Space, limit: number) =>
    searchDb(db)
      .selectFrom('notes')
      .select('notes.id')
      .where('notes.account_id', '=', space.accountId)
      .where('notes.mode', '=', space.mode)
      .where('notes.status', '=', 'ready')
      .where((eb) =>
        eb.not(
          eb.exists(eb.selectFrom('search_notes').select('note_id').whereRef('note_id', '=', 'notes.id')),
        ),
      )
      .orderBy('notes.created_at')
      .limit(limit)
      .execute(),

  /** Every processed note, oldest first, for a full rebuild. */
  allIndexableNotes: (db: Db) =>
    db
      .selectFrom('notes')
      .select(['id', 'account_id', 'mode'])
      .where('status', '=', 'ready')
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
};
