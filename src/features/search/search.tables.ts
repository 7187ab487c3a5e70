import type { Generated, Kysely } from 'kysely';
import type { Database, Db, Mode } from '../../db/schema.ts';
import type { ChunkKind } from './chunk-note.ts';

/** Tables of migration 0003 (src/db/migrations/0003-search.ts). */
export interface SearchChunksTable {
  id: Generated<number>;
  note_id: string;
  account_id: string;
  mode: Mode;
  kind: ChunkKind;
  position: number;
  start_ms: number | null;
  /** JSON array: start time of each line of a transcript passage, for `matched_at_ms`. */
  line_starts: string | null;
  text: string;
  /** Hash of the embedded text, so an unchanged chunk keeps its embedding on re-indexing. */
  text_hash: string;
  /** float32 little-endian components, unit length; null until embedded. */
  embedding: Uint8Array | null;
  /** Which embedder made `embedding`. */
  embedder: string | null;
}

export interface SearchNotesTable {
  note_id: string;
  account_id: string;
  mode: Mode;
  embedder: string | null;
  /** The note's vector: normalised mean of its chunk vectors (float32), what the vector index holds. */
  embedding: Uint8Array | null;
  chunk_count: number;
  indexed_at: string;
}

export interface SearchMetaTable {
  key: string;
  value: string;
  updated_at: string;
}

export type SearchTables = {
  search_chunks: SearchChunksTable;
  search_notes: SearchNotesTable;
  search_meta: SearchMetaTable;
};

export type SearchDb = Kysely<Database & SearchTables>;

/** The database handle with the search tables known to the query builder. */
export function searchDb(db: Db): SearchDb {
  return db.withTables<SearchTables>();
}

/** float32 components as stored in `embedding`. */
export function vectorToBytes(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

export function bytesToVector(bytes: Uint8Array): Float32Array {
  const copy = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(copy.buffer).set(bytes.subarray(0, copy.byteLength));
  return copy;
}
