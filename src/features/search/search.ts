import type { Space } from '../../lib/space.ts';
import { releaseEmbedders } from './embedders/load-embedder.ts';
import { QueryVectors } from './embedders/query-vector.ts';
import { CohereReranker, type RerankerSettings } from './reranker.ts';
import { searchRepo } from './search.repo.ts';
import {
  initEngine,
  type SearchContext,
  type SearchEngine,
  type SearchReadiness,
  type SearchStatus,
} from './search-engine.ts';
import { createExactVectorCache, type ExactVectorCache } from './vectors/exact-store.ts';

export interface SearchPreparation {
  /** Settles once search is prepared, or once stop() was called; never rejects. */
  done: Promise<SearchStatus | undefined>;
  /** Stops retrying (a preparation in progress runs to its end; a failure of it is no longer logged). */
  stop(): void;
}

/**
 * Search as this process runs it for one database, built once by createDeps: the engine (vector store and
 * embedder), its readiness, the reranker, and what searches remember between calls. Searches, indexing and
 * /readyz reach it through `deps.search`; `close()` lets go of the embedder it loaded.
 */
export interface Search {
  /** The engine, initialised on first use (or by prepare at start); a failed initialisation is tried again. */
  engine(): Promise<SearchEngine>;
  /**
   * The engine if it is ready; a caller that must stay cheap and must not wait (a delete, inside its
   * transaction) neither starts one nor waits for one being prepared.
   */
  startedEngine(): SearchEngine | undefined;
  /** Whether search can answer now (GET /readyz); undefined when it was never prepared at start (tests, CLI). */
  readiness(): SearchReadiness | undefined;
  /**
   * Start hook: loads the embedder (building the builtin cache once), picks the vector store, detects an index
   * built by another embedder, and logs what search will do. Never throws: a failure is logged and reported
   * (readiness `failed`), and search retries on first use; an unusable embedder or vector store leaves search
   * keyword-only, and the log says why.
   */
  prepare(options?: { stopped?: () => boolean }): Promise<SearchStatus | undefined>;
  /**
   * prepare without holding up the start: the server listens at once (GET /readyz answers 503 meanwhile),
   * searches and the worker's indexing wait for the same engine. Reported as `preparing` from this call on; the
   * work starts once `after` settles (main.ts: once the start is logged and the first-start keys are printed,
   * as loading the builtin embedder's cache blocks the event loop for a moment). A failed preparation is
   * retried after `retryMs` (doubling, at most a minute) until it succeeds or stop() (or close()) is called.
   */
  prepareInBackground(options?: { retryMs?: number; after?: Promise<unknown> }): SearchPreparation;
  /** Re-scores the best notes (RERANKER set); undefined otherwise. Made again only when its settings change. */
  readonly reranker: CohereReranker | undefined;
  /** Spaces whose processed notes are known to be indexed (`accountId:mode`). */
  readonly coveredSpaces: Set<string>;
  /** Note vectors the exact vector store keeps between searches, within config.search.exactCacheBytes. */
  readonly exactVectors: ExactVectorCache;
  /** Query vectors remembered for their recent uses. */
  readonly queryVectors: QueryVectors;
  /** Notes in the space, remembered for a few seconds: it only scales statistics, so a brief lag is harmless. */
  notesInSpace(space: Space): Promise<number>;
  /** PostgreSQL's most common lexemes of the notes, re-read at most once a minute; empty on SQLite. */
  commonLexemes(): Promise<ReadonlyMap<string, number>>;
  /** Stops a background preparation and lets go of the embedder (closed when no other search holds it). */
  close(): Promise<void>;
}

const SPACE_SIZE_TTL_MS = 5_000;
const LEXEME_STATS_TTL_MS = 60_000;
const NO_LEXEMES: ReadonlyMap<string, number> = new Map();

export function createSearch(context: SearchContext): Search {
  const { db, dialect, config, logger } = context;
  const exactVectors = createExactVectorCache(config.search.exactCacheBytes);
  const spaceSizes = new Map<string, { n: number; at: number }>();
  // The token the loaded embedder is held by: released by close().
  const holder = {};
  let pending: Promise<SearchEngine> | undefined;
  let settled: SearchEngine | undefined;
  let readiness: SearchReadiness | undefined;
  let lexemes: { at: number; freqs: Promise<Map<string, number>> } | undefined;
  const preparations = new Set<SearchPreparation>();
  let closed = false;
  const releaseLater = () => void releaseEmbedders(holder);
  let reranker: { settings: RerankerSettings | undefined; client: CohereReranker | undefined } = {
    settings: undefined,
    client: undefined,
  };

  const search: Search = {
    get reranker() {
      const settings = config.search.reranker;
      if (settings !== reranker.settings)
        reranker = { settings, client: settings && new CohereReranker(settings) };
      return reranker.client;
    },
    coveredSpaces: new Set(),
    exactVectors,
    queryVectors: new QueryVectors(),

    engine() {
      if (!pending) {
        const started = initEngine(context, exactVectors, holder);
        pending = started;
        started.then(
          (engine) => {
            settled = engine;
          },
          () => {
            if (pending === started) pending = undefined;
          },
        );
      }
      return pending;
    },

    startedEngine: () => settled,

    readiness() {
      // Vectors may come (an embedder that answers again, a reindex elsewhere) or go after the start: as of now.
      if (readiness?.state === 'ready' && settled)
        return {
          ...readiness,
          mode: settled.vectorsReady ? 'hybrid' : 'keyword-only',
          vectors: settled.store.kind,
        };
      return readiness;
    },

    async prepare(options = {}) {
      readiness = { state: 'preparing' };
      try {
        const engine = await search.engine();
        const id = engine.embedder?.id;
        const notes = await searchRepo.indexSummary(db, id ?? '');
        const status: SearchStatus = {
          vectorStore: engine.store.kind,
          vectorsReady: engine.vectorsReady,
          notes,
          ...(id ? { embedder: id } : {}),
          ...(engine.vectorProblem ? { problem: engine.vectorProblem } : {}),
          ...(engine.indexEmbedder ? { indexEmbedder: engine.indexEmbedder } : {}),
        };
        if (engine.indexEmbedder) {
          logger.warn(
            { index_embedder: engine.indexEmbedder, embedder: id },
            `the search index was built with ${engine.indexEmbedder} but EMBEDDER is now ${id}; search is keyword-only until \`npx minutes reindex\` rebuilds it`,
          );
        } else if (engine.vectorProblem) {
          logger.warn(
            { vector_store: engine.store.kind, embedder: id },
            `search: ${engine.vectorsReady ? 'hybrid keyword + vector' : 'keyword-only'} (vector store: ${engine.store.kind}); ${engine.vectorProblem}`,
          );
        } else {
          logger.info(
            { vector_store: engine.store.kind, embedder: id },
            `search: hybrid keyword + vector (vector store: ${engine.store.kind})`,
          );
        }
        const rerankerSettings = config.search.reranker;
        if (rerankerSettings) {
          logger.info(
            {
              url: `${rerankerSettings.baseUrl}/rerank`,
              model: rerankerSettings.model,
              candidates: rerankerSettings.candidates,
            },
            'search: the best notes are re-scored by a reranker',
          );
        }
        const missing = notes.ready - notes.indexed;
        if (missing > 0 || (notes.stale > 0 && engine.vectorsReady)) {
          logger.warn(
            { not_indexed: missing, stale: notes.stale },
            'some notes are not in the search index (or were embedded by another model); run `npx minutes reindex`',
          );
        }
        readiness = {
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
        logger.error(
          { err },
          'search could not be prepared; it is retried in the background (and on first use)',
        );
        readiness = {
          state: 'failed',
          problem: err instanceof Error && err.message ? err.message : String(err),
        };
        return undefined;
      }
    },

    prepareInBackground(options = {}) {
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
      readiness = { state: 'preparing' };
      const done = (async () => {
        if (options.after)
          await Promise.race([options.after.catch(() => {}), sleep(Number.POSITIVE_INFINITY)]);
        let delay = options.retryMs ?? 5_000;
        while (!stopped) {
          const status = await search.prepare({ stopped: () => stopped });
          if (status || stopped) return status;
          await sleep(delay);
          delay = Math.min(60_000, delay * 2);
        }
        return undefined;
      })();
      const preparation: SearchPreparation = {
        done,
        stop() {
          stopped = true;
          clearTimeout(timer);
          wake?.();
          preparations.delete(preparation);
        },
      };
      if (closed) preparation.stop();
      else preparations.add(preparation);
      return preparation;
    },

    async notesInSpace(space) {
      const key = `${space.accountId}:${space.mode}`;
      const hit = spaceSizes.get(key);
      if (hit && Date.now() - hit.at < SPACE_SIZE_TTL_MS) return hit.n;
      const n = await searchRepo.countNotes(db, space);
      spaceSizes.set(key, { n, at: Date.now() });
      return n;
    },

    commonLexemes() {
      if (dialect !== 'postgres') return Promise.resolve(NO_LEXEMES);
      if (lexemes && Date.now() - lexemes.at < LEXEME_STATS_TTL_MS) return lexemes.freqs;
      const freqs = searchRepo.commonLexemes(db);
      lexemes = { at: Date.now(), freqs };
      return freqs;
    },

    async close() {
      closed = true;
      search.queryVectors.forget();
      for (const preparation of [...preparations]) preparation.stop();
      // A model being loaded is waited for (releaseEmbedders); the rest of an engine still initialising (an
      // embedder's probe, refilling the vector table) is not: what it takes later is let go of when it ends.
      const late = pending;
      if (late) void late.then(releaseLater, releaseLater);
      await releaseEmbedders(holder);
    },
  };
  return search;
}
