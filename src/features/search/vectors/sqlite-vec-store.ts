import { sql } from 'kysely';
import type { Db } from '../../../db/schema.ts';
import { vectorToBytes } from '../search.tables.ts';
import { countRows, type VectorStore } from './vector-store.ts';

const vecTable = (dims: number) => `search_vec_${Math.trunc(dims)}`;

/** sqlite-vec: one vec0 table per width, keyed by notes.seq, partitioned by account and mode, cosine distance. */
export const sqliteVecStore: VectorStore = {
  kind: 'sqlite-vec',
  async prepare(db, dims) {
    await sql
      .raw(
        `CREATE VIRTUAL TABLE IF NOT EXISTS ${vecTable(dims)} USING vec0(
          note_seq INTEGER PRIMARY KEY,
          account_id TEXT PARTITION KEY,
          mode TEXT PARTITION KEY,
          embedding float[${Math.trunc(dims)}] distance_metric=cosine
        )`,
      )
      .execute(db);
  },
  async reset(db) {
    const tables = await sql<{ name: string }>`
      SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'search_vec_[0-9]*'
        AND sql LIKE '%vec0%'`.execute(db);
    for (const { name } of tables.rows) await sql.raw(`DROP TABLE IF EXISTS "${name}"`).execute(db);
  },
  async put(db, dims, note) {
    const row = await db.selectFrom('notes').select('seq').where('id', '=', note.noteId).executeTakeFirst();
    if (!row) return;
    // vec0 accepts only integer keys; better-sqlite3 binds plain numbers as REAL.
    const seq = BigInt(row.seq);
    await sql`DELETE FROM ${sql.table(vecTable(dims))} WHERE note_seq = ${seq}`.execute(db);
    await sql`INSERT INTO ${sql.table(vecTable(dims))} (note_seq, account_id, mode, embedding)
      VALUES (${seq}, ${note.accountId}, ${note.mode}, ${vectorToBytes(note.vector)})`.execute(db);
  },
  async remove(db, dims, noteIds) {
    if (!noteIds.length) return;
    const rows = await db.selectFrom('notes').select('seq').where('id', 'in', noteIds).execute();
    await removeSeqs(
      db,
      dims,
      rows.map((r) => Number(r.seq)),
    );
  },
  count: (db, dims) => countRows(db, vecTable(dims)),
  async search(db, dims, space, vector, k) {
    const rows = await sql<{ note_seq: number; distance: number; id: string | null }>`
      SELECT v.note_seq, v.distance, n.id FROM (
        SELECT note_seq, distance FROM ${sql.table(vecTable(dims))}
        WHERE embedding MATCH ${vectorToBytes(vector)} AND k = ${Math.min(4096, k)}
          AND account_id = ${space.accountId} AND mode = ${space.mode}
      ) v LEFT JOIN notes n ON n.seq = v.note_seq AND n.account_id = ${space.accountId} AND n.mode = ${space.mode}`.execute(
      db,
    );
    // A note deleted by a process that could not reach this table leaves its vector behind: drop it now.
    const orphans = rows.rows.filter((r) => r.id === null).map((r) => Number(r.note_seq));
    if (orphans.length) await removeSeqs(db, dims, orphans);
    return rows.rows
      .filter((r) => r.id !== null)
      .map((r) => ({ noteId: r.id!, similarity: 1 - Number(r.distance) }));
  },
};

async function removeSeqs(db: Db, dims: number, seqs: number[]) {
  for (let i = 0; i < seqs.length; i += 500) {
    const batch = seqs.slice(i, i + 500).map((s) => BigInt(s));
    await sql`DELETE FROM ${sql.table(vecTable(dims))} WHERE note_seq IN (${sql.join(batch)})`.execute(db);
  }
}
