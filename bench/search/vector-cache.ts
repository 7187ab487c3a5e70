/**
 * An on-disk cache of passage vectors for the search benchmarks, so that a rerun does not re-embed what an
 * earlier run embedded (all-MiniLM-L6-v2 takes ~30 ms per passage on this machine: QMSum train's 12,000
 * passages are minutes, 10,000 notes far more). Keyed by the embedder's id and the SHA-1 of the text; kept
 * under `.tmp/bench-vectors/` (gitignored). Queries are never cached: their embedding is part of a search's time.
 * Benchmarks only: the service embeds every passage it indexes.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Deps } from '../../src/deps.ts';
import type { Embedder, EmbedKind } from '../../src/features/search/embedders/embedder.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const VECTOR_CACHE_DIR =
  process.env.BENCH_VECTOR_CACHE ?? path.resolve(here, '../../.tmp/bench-vectors');
const KEY_BYTES = 20;

export interface VectorCacheStats {
  hits: number;
  misses: number;
  file: string;
}

/**
 * Replaces the engine's embedder (for these deps) by one that reads passage vectors from the cache and
 * appends the ones it had to compute. Returns live counters. A no-op without an embedder.
 */
export async function useVectorCache(deps: Deps): Promise<VectorCacheStats | undefined> {
  if (process.env.BENCH_VECTOR_CACHE === 'off') return undefined;
  const engine = await deps.search.engine();
  const inner = engine.embedder;
  if (!inner) return undefined;
  if ((inner as Partial<CachedEmbedder>).stats) return (inner as CachedEmbedder).stats;
  const cached = new CachedEmbedder(inner);
  engine.embedder = cached;
  return cached.stats;
}

class CachedEmbedder implements Embedder {
  readonly id: string;
  readonly dims: number;
  readonly stats: VectorCacheStats;
  private readonly vectors = new Map<string, Float32Array>();

  constructor(private readonly inner: Embedder) {
    this.id = inner.id;
    this.dims = inner.dims;
    fs.mkdirSync(VECTOR_CACHE_DIR, { recursive: true });
    const file = path.join(VECTOR_CACHE_DIR, `${inner.id.replace(/[^\w.-]+/g, '_')}.bin`);
    this.stats = { hits: 0, misses: 0, file };
    if (fs.existsSync(file)) {
      const buf = fs.readFileSync(file);
      const record = KEY_BYTES + 4 * this.dims;
      // A torn last record (a run stopped mid-write) is ignored.
      for (let at = 0; at + record <= buf.length; at += record) {
        const key = buf.subarray(at, at + KEY_BYTES).toString('hex');
        const v = new Float32Array(this.dims);
        Buffer.from(v.buffer).set(buf.subarray(at + KEY_BYTES, at + record));
        this.vectors.set(key, v);
      }
    }
  }

  async embed(texts: readonly string[], kind: EmbedKind): Promise<Float32Array[]> {
    if (kind === 'query') return this.inner.embed(texts, kind);
    const keys = texts.map((t) => createHash('sha1').update(t).digest('hex'));
    const missing = [
      ...new Set(keys.flatMap((k, i) => (this.vectors.has(k) ? [] : [i])).map((i) => texts[i]!)),
    ];
    this.stats.hits += texts.length - missing.length;
    this.stats.misses += missing.length;
    if (missing.length) {
      const fresh = await this.inner.embed(missing, kind);
      const out: Buffer[] = [];
      missing.forEach((text, i) => {
        const key = createHash('sha1').update(text).digest('hex');
        const v = fresh[i]!;
        this.vectors.set(key, v);
        out.push(Buffer.from(key, 'hex'), Buffer.from(v.buffer, v.byteOffset, v.byteLength));
      });
      fs.appendFileSync(this.stats.file, Buffer.concat(out));
    }
    return keys.map((k) => Float32Array.from(this.vectors.get(k)!));
  }

  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }
}
