import { sql } from 'kysely';
import type { Db, Dialect } from '../../db/schema.ts';
import { type SearchFilters, type Space, searchRepo } from './search.repo.ts';
import { vectorToBytes } from './search.tables.ts';

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

/** Note vectors read per page by the exact search: 2,000 × 384 floats is 3 MB, whatever the space's size. */
const EXACT_PAGE = 2_000;

interface CachedSpace {
  /** count and newest indexed_at of the space's vectors when read: a change of either means re-read. */
  stamp: string;
  ids: string[];
  vectors: Float32Array;
  dims: number;
}

/**
 * The note vectors the exact store keeps in memory across searches: one per Deps (`deps.search.exactVectors`,
 * so per database), all spaces together within `budgetBytes` (config.search.exactCacheBytes), least recently
 * used dropped first.
 */
export interface ExactVectorCache {
  readonly budgetBytes: number;
  /** Spaces' vectors by `account + mode + embedder`, most recently used last. */
  readonly spaces: Map<string, CachedSpace>;
  /** Bytes of vectors held. */
  bytes: number;
}

export function createExactVectorCache(budgetBytes: number): ExactVectorCache {
  return { budgetBytes, spaces: new Map(), bytes: 0 };
}

function cacheKey(space: Space, embedderId: string): string {
  return `${space.accountId}\0${space.mode}\0${embedderId}`;
}

function dropCached(cache: ExactVectorCache, key: string): void {
  const cached = cache.spaces.get(key);
  if (!cached) return;
  cache.bytes -= cached.vectors.byteLength;
  cache.spaces.delete(key);
}

/**
 * Without a vector extension (SQLite without sqlite-vec, PostgreSQL without pgvector): exact cosine, in the server
 * process, over the note vectors stored in `search_notes` (float32 bytes in a BLOB / BYTEA). A space's vectors are
 * kept in `cache` between searches (its budget for all spaces, 256 MB by default, least recently used dropped
 * first) and read again when the space's vector count or newest `indexed_at` changed (one indexed aggregate per
 * search, so another process's writes are seen). A space larger than the cache is read in pages in note-id order keeping only the
 * best `k`, so memory stays bounded however large the space (docs/performance.md). Same results as an
 * extension's exact search.
 */
export function createExactStore(cache: ExactVectorCache): VectorStore {
  return {
    kind: 'exact',
    prepare: async () => {},
    reset: async () => {},
    put: async () => {},
    remove: async () => {},
    count: async () => 0,
    async search(db, dims, space, vector, k, { embedderId }) {
      const key = cacheKey(space, embedderId);
      const stamp = await searchRepo.noteEmbeddingsStamp(db, space, embedderId);
      const fits = stamp.count * dims * 4 <= cache.budgetBytes;
      const previous = cache.spaces.get(key);
      let cached = previous?.stamp === stamp.value && previous.dims === dims ? previous : undefined;
      if (!cached && fits) {
        dropCached(cache, key);
        const ids: string[] = [];
        const vectors = new Float32Array(stamp.count * dims);
        let after = '';
        for (;;) {
          const page = await searchRepo.noteVectorsAfter(db, embedderId, after, EXACT_PAGE, space);
          for (const row of page) {
            if (ids.length >= stamp.count) break;
            readVector(row.embedding, vectors, ids.length * dims, dims);
            ids.push(row.note_id);
          }
          if (page.length < EXACT_PAGE) break;
          after = page[page.length - 1]!.note_id;
        }
        cached = { stamp: stamp.value, ids, vectors: vectors.subarray(0, ids.length * dims), dims };
        while (cache.spaces.size && cache.bytes + cached.vectors.byteLength > cache.budgetBytes) {
          dropCached(cache, cache.spaces.keys().next().value!);
        }
        cache.spaces.set(key, cached);
        cache.bytes += cached.vectors.byteLength;
      }
      if (cached) {
        // Most recently used last.
        cache.spaces.delete(key);
        cache.spaces.set(key, cached);
        const hits: VectorHit[] = [];
        for (let i = 0; i < cached.ids.length; i++) {
          let sum = 0;
          const base = i * dims;
          for (let d = 0; d < dims; d++) sum += vector[d]! * cached.vectors[base + d]!;
          hits.push({ noteId: cached.ids[i]!, similarity: sum });
        }
        hits.sort(byHit);
        return hits.slice(0, k);
      }
      return pagedSearch(db, space, vector, k, embedderId);
    },
  };
}

/** A space too large for the cache: one page at a time, the best `k` kept. */
async function pagedSearch(
  db: Db,
  space: Space,
  vector: Float32Array,
  k: number,
  embedderId: string,
): Promise<VectorHit[]> {
  const best: VectorHit[] = [];
  let floor = Number.NEGATIVE_INFINITY;
  let after = '';
  const row = new Float32Array(vector.length);
  for (;;) {
    const page = await searchRepo.noteVectorsAfter(db, embedderId, after, EXACT_PAGE, space);
    for (const r of page) {
      readVector(r.embedding, row, 0, vector.length);
      let similarity = 0;
      for (let d = 0; d < vector.length; d++) similarity += vector[d]! * row[d]!;
      if (best.length >= k && similarity <= floor) continue;
      best.push({ noteId: r.note_id, similarity });
      if (best.length >= 2 * k) {
        best.sort(byHit);
        best.length = k;
        floor = best[k - 1]!.similarity;
      }
    }
    if (page.length < EXACT_PAGE) break;
    after = page[page.length - 1]!.note_id;
  }
  best.sort(byHit);
  return best.slice(0, k);
}

/** float32 little-endian bytes into `out` at `offset` (zeros past the stored vector's end). */
function readVector(bytes: Uint8Array, out: Float32Array, offset: number, dims: number): void {
  const n = Math.min(dims, bytes.byteLength >> 2);
  if (bytes.byteOffset % 4 === 0) {
    out.set(new Float32Array(bytes.buffer, bytes.byteOffset, n), offset);
  } else {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < n; i++) out[offset + i] = view.getFloat32(i * 4, true);
  }
  out.fill(0, offset + n, offset + dims);
}

const byHit = (a: VectorHit, b: VectorHit) => b.similarity - a.similarity || (a.noteId < b.noteId ? -1 : 1);

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

async function countRows(db: Db, table: string): Promise<number> {
  const row = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db);
  return Number(row.rows[0]?.n ?? 0);
}

function toPgVector(v: Float32Array): string {
  return `[${Array.from(v, (x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;
}

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
