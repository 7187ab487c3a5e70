import { sql } from 'kysely';
import type { Db } from '../../../db/schema.ts';
import type { SearchFilters, Space } from '../search.repo.ts';

/** One note's vector: the normalised mean of its chunk vectors. */
export interface NoteVector {
  noteId: string;
  accountId: string;
  mode: string;
  vector: Float32Array;
}

export interface VectorHit {
  noteId: string;
  /** Cosine similarity, -1..1. */
  similarity: number;
}

/**
 * Nearest-neighbour search over note vectors: the first stage of vector search (the chunks of the notes it
 * returns are then compared with the query one by one, from the embeddings stored with the chunks). One vector
 * per note keeps the index small (10,000 notes, not 130,000 passages) and the search fast. Chosen at start by
 * what the database offers: `sqlite-vec` (vec0, partitioned by account and mode), `pgvector` (HNSW), or `exact`
 * (either database without its extension: cosine over `search_notes.embedding` in the server process).
 */
export interface VectorStore {
  readonly kind: 'sqlite-vec' | 'exact' | 'pgvector';
  /** Creates the table for vectors of `dims` components if it is missing. */
  prepare(db: Db, dims: number): Promise<void>;
  /** Drops every vector table (a rebuild with another embedder follows). */
  reset(db: Db): Promise<void>;
  /** Adds or replaces the vector of a note. */
  put(db: Db, dims: number, note: NoteVector): Promise<void>;
  remove(db: Db, dims: number, noteIds: readonly string[]): Promise<void>;
  /** Vectors held (all spaces), to see whether the table agrees with `search_notes`. */
  count(db: Db, dims: number): Promise<number>;
  /** The `k` notes of the space nearest to `vector`; filters are applied by the caller. */
  search(
    db: Db,
    dims: number,
    space: Space,
    vector: Float32Array,
    k: number,
    context: { embedderId: string; filters: SearchFilters },
  ): Promise<VectorHit[]>;
}

/** Rows of a vector table (all spaces). */
export async function countRows(db: Db, table: string): Promise<number> {
  const row = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db);
  return Number(row.rows[0]?.n ?? 0);
}
