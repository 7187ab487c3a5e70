/**
 * The baseline the search benchmarks measure the exact store against in the same run (bench/search/exact-store.ts,
 * run.ts): its change check is an aggregate over the space's rows (count and newest indexed_at) and its scan runs
 * on the calling thread. Otherwise as src/features/search/vectors/exact-store.ts: same cache, same results.
 */
import type { Db } from '../../src/db/schema.ts';
import { type Space, searchRepo } from '../../src/features/search/search.repo.ts';
import type { VectorHit, VectorStore } from '../../src/features/search/vectors/vector-store.ts';

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
export interface BaselineVectorCache {
  readonly budgetBytes: number;
  /** Spaces' vectors by `account + mode + embedder`, most recently used last. */
  readonly spaces: Map<string, CachedSpace>;
  /** Bytes of vectors held. */
  bytes: number;
}

export function createBaselineVectorCache(budgetBytes: number): BaselineVectorCache {
  return { budgetBytes, spaces: new Map(), bytes: 0 };
}

function cacheKey(space: Space, embedderId: string): string {
  return `${space.accountId}\0${space.mode}\0${embedderId}`;
}

function dropCached(cache: BaselineVectorCache, key: string): void {
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
export function createBaselineExactStore(cache: BaselineVectorCache): VectorStore {
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
        return nearest(cached, vector, k);
      }
      return pagedSearch(db, space, vector, k, embedderId);
    },
  };
}

/**
 * The `k` best of a cached space, kept in a small sorted list while scanning: a space of 100,000 notes makes no
 * 100,000 hit objects to sort, only the few that enter the list.
 */
function nearest(cached: CachedSpace, vector: Float32Array, k: number): VectorHit[] {
  const { ids, vectors, dims } = cached;
  const best: VectorHit[] = [];
  const tail = dims - (dims % 4);
  for (let i = 0; i < ids.length; i++) {
    const base = i * dims;
    // Four running sums: about twice as fast in V8 as one, which matters at 100,000 notes.
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let d = 0; d < tail; d += 4) {
      s0 += vector[d]! * vectors[base + d]!;
      s1 += vector[d + 1]! * vectors[base + d + 1]!;
      s2 += vector[d + 2]! * vectors[base + d + 2]!;
      s3 += vector[d + 3]! * vectors[base + d + 3]!;
    }
    let sum = s0 + s1 + s2 + s3;
    for (let d = tail; d < dims; d++) sum += vector[d]! * vectors[base + d]!;
    if (best.length >= k) {
      const last = best[k - 1]!;
      if (sum < last.similarity || (sum === last.similarity && ids[i]! > last.noteId)) continue;
    }
    const hit = { noteId: ids[i]!, similarity: sum };
    let at = best.length;
    while (at > 0 && byHit(hit, best[at - 1]!) < 0) at--;
    best.splice(at, 0, hit);
    if (best.length > k) best.pop();
  }
  return best;
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
