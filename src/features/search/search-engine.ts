import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { Db, Dialect } from '../../db/schema.ts';
import { nowIso } from '../../lib/time.ts';
import type { Embedder } from './embedders/embedder.ts';
import { createEmbedder } from './embedders/load-embedder.ts';
import { searchRepo } from './search.repo.ts';
import { bytesToVector } from './search.tables.ts';
import { detectVectorStore } from './vectors/detect-vector-store.ts';
import type { ExactVectorCache } from './vectors/exact-store.ts';
import type { VectorStore } from './vectors/vector-store.ts';

/** Index-wide settings in `search_meta`. */
export const META_EMBEDDER = 'embedder';
export const META_DIMS = 'dims';

/** What the search feature runs with in this process. */
export interface SearchEngine {
  store: VectorStore;
  /** Null when the embedder could not be loaded (search is then keyword-only). */
  embedder: Embedder | null;
  /** Why vectors are not used, when they are not. */
  vectorProblem?: string;
  /** The embedder the existing index was built with, when it differs from `embedder`. */
  indexEmbedder?: string;
  /** True when queries can use the vector index and new chunks are written to it. */
  vectorsReady: boolean;
  /** Re-reads the index's embedder when a mismatch was seen (another process may have rebuilt it). */
  refresh(): Promise<void>;
}

/** How long a failed embedder load or a mismatch is remembered before looking again. */
const RECHECK_MS = 30_000;

/** What the engine and the search object work with: the database and settings they were built for. */
export interface SearchContext {
  db: Db;
  dialect: Dialect;
  config: Config;
  logger: Logger;
}

/**
 * Builds the engine: picks the vector store, loads the embedder (held by `holder` until it lets go) and checks
 * the index was built by it. Throws when the database cannot be read; an unusable embedder leaves it
 * keyword-only, retried by refresh().
 */
export async function initEngine(
  deps: SearchContext,
  exactVectors: ExactVectorCache,
  holder: object,
): Promise<SearchEngine> {
  const { store, note } = await detectVectorStore(deps.db, deps.dialect, exactVectors);
  const engine: SearchEngine = {
    store,
    embedder: null,
    vectorsReady: false,
    refresh: async () => {},
    ...(note ? { vectorProblem: note } : {}),
  };

  let checkedAt = 0;
  const settle = async () => {
    checkedAt = Date.now();
    if (!engine.embedder) {
      try {
        engine.embedder = await createEmbedder(deps.config, deps.logger, holder);
        if (engine.vectorProblem?.startsWith('embedder')) delete engine.vectorProblem;
      } catch (err) {
        engine.vectorProblem = `embedder unavailable: ${err instanceof Error ? err.message : String(err)}`;
        return;
      }
    }
    const embedder = engine.embedder;
    const built = await searchRepo.getMeta(deps.db, META_EMBEDDER);
    if (built === undefined) {
      // A new index: this embedder builds it.
      await searchRepo.setMeta(deps.db, META_EMBEDDER, embedder.id, nowIso());
      await searchRepo.setMeta(deps.db, META_DIMS, String(embedder.dims), nowIso());
    } else if (built !== embedder.id) {
      engine.indexEmbedder = built;
      engine.vectorsReady = false;
      return;
    }
    delete engine.indexEmbedder;
    await store.prepare(deps.db, embedder.dims);
    await syncVectorTable(deps, store, embedder);
    engine.vectorsReady = true;
  };
  engine.refresh = async () => {
    if (engine.vectorsReady || Date.now() - checkedAt < RECHECK_MS) return;
    await settle();
  };
  await settle();
  return engine;
}

/**
 * Refills the vector table from the note vectors kept in `search_notes` when the two disagree: after a
 * `reindex` run by a process without sqlite-vec, or a restore of the database without the extension's tables.
 * Needs no embedding, so it is quick (seconds for 10,000 notes).
 */
async function syncVectorTable(deps: SearchContext, store: VectorStore, embedder: Embedder): Promise<void> {
  if (store.kind !== 'sqlite-vec' && store.kind !== 'pgvector') return;
  const vectors = await searchRepo.noteVectorCount(deps.db, embedder.id);
  if ((await store.count(deps.db, embedder.dims)) === vectors) return;
  deps.logger.info({ notes: vectors }, 'search: refilling the vector index from stored note vectors');
  await store.reset(deps.db);
  await store.prepare(deps.db, embedder.dims);
  let after = '';
  for (;;) {
    const batch = await searchRepo.noteVectorsAfter(deps.db, embedder.id, after, 500);
    if (!batch.length) break;
    await deps.db.transaction().execute(async (trx) => {
      for (const row of batch) {
        await store.put(trx, embedder.dims, {
          noteId: row.note_id,
          accountId: row.account_id,
          mode: row.mode,
          vector: bytesToVector(row.embedding),
        });
      }
    });
    after = batch[batch.length - 1]!.note_id;
  }
}

/** What `prepareSearch` found, also logged. */
export interface SearchStatus {
  vectorStore: VectorStore['kind'];
  embedder?: string;
  vectorsReady: boolean;
  problem?: string;
  /** Set when the index was built by another embedder: run `minutes reindex`. */
  indexEmbedder?: string;
  notes: { indexed: number; stale: number; ready: number };
}

/** Whether search can answer now: reported by GET /readyz. */
export interface SearchReadiness {
  state: 'preparing' | 'ready' | 'failed';
  /** What search runs with once ready. */
  mode?: 'hybrid' | 'keyword-only';
  /** Why preparing failed (retried in the background), or why vectors are not used. */
  problem?: string;
  /** How vectors are searched: `sqlite-vec`, `pgvector` (HNSW) or `exact` (in the server process). */
  vectors?: VectorStore['kind'];
}
