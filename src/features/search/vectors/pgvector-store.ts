import { sql } from 'kysely';
import { countRows, type VectorStore } from './vector-store.ts';

const pgTable = (dims: number) => `search_note_vectors_${Math.trunc(dims)}`;
/** pgvector's HNSW index takes vectors of at most 2,000 dimensions; wider ones are searched exactly. */
const HNSW_MAX_DIMS = 2000;

/** pgvector: one table per width with an HNSW index (cosine); a note's vector goes with the note (cascade). */
export function pgvectorStore(version: string): VectorStore {
  // Iterative index scans (0.8+) keep returning neighbours after the account/mode filter removed some.
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const iterative = major > 0 || minor >= 8;
  return {
    kind: 'pgvector',
    async prepare(db, dims) {
      const table = pgTable(dims);
      await sql
        .raw(
          `CREATE TABLE IF NOT EXISTS ${table} (
            note_id TEXT COLLATE "C" PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
            account_id TEXT COLLATE "C" NOT NULL,
            mode TEXT NOT NULL,
            embedding vector(${Math.trunc(dims)}) NOT NULL
          )`,
        )
        .execute(db);
      if (dims <= HNSW_MAX_DIMS) {
        await sql
          .raw(
            `CREATE INDEX IF NOT EXISTS ${table}_hnsw ON ${table} USING hnsw (embedding vector_cosine_ops)`,
          )
          .execute(db);
      }
      await sql.raw(`CREATE INDEX IF NOT EXISTS ${table}_space ON ${table} (account_id, mode)`).execute(db);
    },
    async reset(db) {
      const tables = await sql<{ tablename: string }>`
        SELECT tablename FROM pg_tables
        WHERE schemaname = current_schema() AND tablename ~ '^search_note_vectors_[0-9]+$'`.execute(db);
      for (const { tablename } of tables.rows)
        await sql.raw(`DROP TABLE IF EXISTS "${tablename}"`).execute(db);
    },
    async put(db, dims, note) {
      await sql`INSERT INTO ${sql.table(pgTable(dims))} (note_id, account_id, mode, embedding)
        VALUES (${note.noteId}, ${note.accountId}, ${note.mode}, ${toPgVector(note.vector)}::vector)
        ON CONFLICT (note_id) DO UPDATE SET embedding = excluded.embedding`.execute(db);
    },
    async remove(db, dims, noteIds) {
      if (!noteIds.length) return;
      await sql`DELETE FROM ${sql.table(pgTable(dims))} WHERE note_id IN (${sql.join(noteIds)})`.execute(db);
    },
    count: (db, dims) => countRows(db, pgTable(dims)),
    async search(db, dims, space, vector, k) {
      const literal = toPgVector(vector);
      return db.transaction().execute(async (trx) => {
        await sql.raw(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(40, k))}`).execute(trx);
        if (iterative) await sql.raw(`SET LOCAL hnsw.iterative_scan = relaxed_order`).execute(trx);
        const rows = await sql<{ note_id: string; distance: number }>`
          SELECT note_id, embedding <=> ${literal}::vector AS distance
          FROM ${sql.table(pgTable(dims))}
          WHERE account_id = ${space.accountId} AND mode = ${space.mode}
          ORDER BY embedding <=> ${literal}::vector
          LIMIT ${k}`.execute(trx);
        return rows.rows.map((r) => ({ noteId: r.note_id, similarity: 1 - Number(r.distance) }));
      });
    },
  };
}

function toPgVector(v: Float32Array): string {
  return `[${Array.from(v, (x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;
}
