import { sql } from 'kysely';
import type { Db, Dialect } from '../../../db/schema.ts';
import { createExactStore, type ExactVectorCache } from './exact-store.ts';
import { pgvectorStore } from './pgvector-store.ts';
import { sqliteVecStore } from './sqlite-vec-store.ts';
import type { VectorStore } from './vector-store.ts';

/**
 * Picks the store the database supports: sqlite-vec when the extension is loaded into the connection,
 * pgvector when the extension exists (created here if the role may), else the fallback of the dialect.
 */
export async function detectVectorStore(
  db: Db,
  dialect: Dialect,
  exactCache: ExactVectorCache,
): Promise<{ store: VectorStore; note?: string }> {
  if (dialect === 'sqlite') {
    try {
      await sql`SELECT vec_version()`.execute(db);
      return { store: sqliteVecStore };
    } catch {
      return {
        store: createExactStore(exactCache),
        note: 'sqlite-vec is not loaded into the database connection; vector search compares every note vector exactly (slower on large indexes)',
      };
    }
  }
  try {
    await db.transaction().execute(async (trx) => {
      await sql`CREATE EXTENSION IF NOT EXISTS vector`.execute(trx);
    });
  } catch {
    // Not installed on the server, or not allowed: checked below.
  }
  const row = await sql<{ extversion: string }>`
    SELECT extversion FROM pg_extension WHERE extname = 'vector'`.execute(db);
  const version = row.rows[0]?.extversion;
  if (!version) {
    return {
      store: createExactStore(exactCache),
      note: 'pgvector is not installed in this PostgreSQL; vector search compares every note vector of the space exactly in the server process (install pgvector for an HNSW index: docs/operations.md)',
    };
  }
  return { store: pgvectorStore(version) };
}
