import type { Db } from '../../../db/schema.ts';
import { type Space, searchRepo } from '../search.repo.ts';
import { MAX_MEMORIES, ScanMemories, type ScanSpace, scanSpaceBytes } from './scan-memory.ts';
import { ScanThread } from './scan-thread.ts';
import type { VectorHit, VectorStore } from './vector-store.ts';

/** Note vectors read per page by the exact search: 2,000 × 384 floats is 3 MB, whatever the space's size. */
const EXACT_PAGE = 2_000;

interface CachedSpace {
  /** The space's note-vector version when read (`search_meta`): another means re-read. */
  stamp: string;
  ids: string[];
  /** The vectors, a row per id, in memory the scanning thread computes in. */
  space: ScanSpace;
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
  /** Bytes of the cached spaces' memories. */
  bytes: number;
  /** The memories spaces are cached in, reused (within the budget too). */
  readonly memories: ScanMemories;
  /** Where cached spaces are scanned, off the event loop. */
  readonly scanner: ScanThread;
}

export function createExactVectorCache(budgetBytes: number): ExactVectorCache {
  return {
    budgetBytes,
    spaces: new Map(),
    bytes: 0,
    memories: new ScanMemories(budgetBytes),
    scanner: new ScanThread(),
  };
}

function cacheKey(space: Space, embedderId: string): string {
  return `${space.accountId}\0${space.mode}\0${embedderId}`;
}

function dropCached(cache: ExactVectorCache, key: string): void {
  const cached = cache.spaces.get(key);
  if (!cached) return;
  cache.bytes -= cached.space.bytes;
  cache.spaces.delete(key);
  cache.memories.release(cached.space);
}

/**
 * Without a vector extension (SQLite without sqlite-vec, PostgreSQL without pgvector): exact cosine, in the server
 * process, over the note vectors stored in `search_notes` (float32 bytes in a BLOB / BYTEA). A space's vectors are
 * kept in `cache` between searches, contiguous in shared WebAssembly memory (its budget for all spaces, 256 MB by
 * default, least recently used dropped first), scanned in the cache's thread rather than on the event loop, and
 * read again when the space's note-vector version changed (one primary-key read per search, so another process's
 * writes are seen). A space larger than the cache is read in pages in note-id order keeping only the best `k`, so memory
 * stays bounded however large the space (docs/performance.md). Same results as an extension's exact search.
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
      // Read before the vectors: a write landing while they are read gives the next search a new version.
      const version = await searchRepo.noteVectorsVersion(db, space);
      const previous = cache.spaces.get(key);
      let cached = previous?.stamp === version && previous.dims === dims ? previous : undefined;
      // An outdated copy goes at once, even when the space no longer fits: a deleted note's vector is not kept.
      if (!cached) dropCached(cache, key);
      const stamp = cached ? undefined : await searchRepo.noteEmbeddingsStamp(db, space, embedderId);
      const bytes = stamp ? scanSpaceBytes(stamp.count, dims) : 0;
      // The least recently used spaces make room first (bytes, and one of the few memories), so that their memory
      // can hold this one: every space that fits gets its turn in the cache.
      while (
        stamp?.count &&
        bytes <= cache.budgetBytes &&
        cache.spaces.size &&
        (cache.bytes + bytes > cache.budgetBytes || cache.spaces.size >= MAX_MEMORIES)
      ) {
        dropCached(cache, cache.spaces.keys().next().value!);
      }
      // Written here, then read (and given the query and scores) by the scanning thread.
      const taken = stamp?.count ? cache.memories.take(stamp.count, dims) : undefined;
      if (stamp && taken) {
        let ids: string[];
        try {
          ids = await readSpace(db, space, embedderId, stamp.count, taken.vectors, dims);
        } catch (err) {
          cache.memories.release(taken);
          throw err;
        }
        // A search of the same space that read it meanwhile gives its copy back.
        dropCached(cache, key);
        cached = { stamp: version, ids, space: taken, dims };
        cache.spaces.set(key, cached);
        cache.bytes += taken.bytes;
      }
      if (cached) {
        // Most recently used last.
        cache.spaces.delete(key);
        cache.spaces.set(key, cached);
        return nearest(cache, cached, vector, k);
      }
      return pagedSearch(db, space, vector, k, embedderId);
    },
  };
}

/** A space's note vectors into `vectors`, a row per note in note-id order (at most `count`); their ids. */
async function readSpace(
  db: Db,
  space: Space,
  embedderId: string,
  count: number,
  vectors: Float32Array,
  dims: number,
): Promise<string[]> {
  const ids: string[] = [];
  let after = '';
  for (;;) {
    const page = await searchRepo.noteVectorsAfter(db, embedderId, after, EXACT_PAGE, space);
    for (const row of page) {
      if (ids.length >= count) break;
      readVector(row.embedding, vectors, ids.length * dims, dims);
      ids.push(row.note_id);
    }
    if (page.length < EXACT_PAGE) return ids;
    after = page[page.length - 1]!.note_id;
  }
}

/** The `k` best of a cached space, scanned in the cache's thread; ties at the k-th broken by note id here. */
async function nearest(
  cache: ExactVectorCache,
  cached: CachedSpace,
  vector: Float32Array,
  k: number,
): Promise<VectorHit[]> {
  const { ids, space, dims } = cached;
  const { indexes, similarities } = await cache.memories.scanning(space, () =>
    cache.scanner.scan({ memory: space.memory, count: ids.length, dims, query: vector, k }),
  );
  const hits = Array.from(indexes, (row, i) => ({ noteId: ids[row]!, similarity: similarities[i]! }));
  return hits.sort(byHit).slice(0, k);
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
