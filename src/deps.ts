import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { type DatabaseHandle, openDatabase } from './db/connect.ts';
import type { Db, Dialect } from './db/schema.ts';
import { createProcessingPool, type ProcessingPool } from './features/processing/pool/processing-pool.ts';
import type { SearchEngine, SearchReadiness } from './features/search/search-engine.ts';
import { createExactVectorCache, type ExactVectorCache } from './features/search/vector-store.ts';
import { createLogger } from './lib/logger.ts';

/** What one set of deps' searches remember: the engine, its readiness and short-lived statistics. */
export interface SearchState {
  /** The engine, initialised on first use (or by prepareSearch at start); dropped when initialising fails. */
  engine?: Promise<SearchEngine>;
  /** The engine once its initialisation has finished (what a caller that must not wait can use). */
  settled?: SearchEngine;
  /** Undefined when search was never prepared at start (tests, the CLI). */
  readiness?: SearchReadiness;
  /** Spaces whose processed notes are known to be indexed (`accountId:mode`). */
  coveredSpaces: Set<string>;
  /** Notes per space (`accountId:mode`), remembered for a few seconds. */
  spaceSizes: Map<string, { n: number; at: number }>;
  /** Note vectors the exact vector store keeps between searches, within config.search.exactCacheBytes. */
  exactVectors: ExactVectorCache;
  /** PostgreSQL planner statistics of notes.search_vector, re-read at most once a minute. */
  lexemeStats?: { at: number; freqs: Promise<Map<string, number>> };
}

/** Deliveries created by the current fan-out burst since its last ANALYZE (PostgreSQL). */
export interface FanOutState {
  burstSize: number;
}

/** Test data spaces of this database: seeded ones (no query per request) and seeds in progress. */
export interface SeedState {
  seeded: Set<string>;
  inFlight: Map<string, Promise<void>>;
}

/**
 * What routes, services, workers and the CLI share, built once by createDeps: the database, the configuration,
 * the logger, the worker's wake-up, and every collaborator that remembers something between calls. Nothing a
 * request needs sits in module state (docs/architecture.md, "Where state lives").
 */
export interface Deps {
  db: Db;
  dialect: Dialect;
  config: Config;
  logger: Logger;
  /** Wakes the in-process worker when a job is enqueued (no-op when the worker runs elsewhere). */
  wakeWorker: () => void;
  /** The processing threads (parse, analyze, chunk), sized by config.processing; started on first use. */
  processing: ProcessingPool;
  search: SearchState;
  fanOut: FanOutState;
  seed: SeedState;
  /** Closes what createDeps opened (the processing threads; the database unless it was given); idempotent. */
  close(): Promise<void>;
}

export interface DepsOverrides {
  /** An open database to use (not closed by close()); opened from config.database otherwise. */
  database?: Pick<DatabaseHandle, 'db' | 'dialect'>;
  /** Connections of a PostgreSQL pool opened here (default 10). */
  poolSize?: number;
  /** Made from config.logLevel otherwise. */
  logger?: Logger;
  /** A no-op otherwise (the worker runs elsewhere). */
  wakeWorker?: () => void;
}

/** The one place Deps are built: the server, the worker, every CLI command and the tests' harness. */
export function createDeps(config: Config, overrides: DepsOverrides = {}): Deps {
  const opened = overrides.database
    ? undefined
    : openDatabase(config.database, overrides.poolSize ? { poolSize: overrides.poolSize } : {});
  const database = overrides.database ?? opened!;
  const processing = createProcessingPool(config.processing);
  let closing: Promise<void> | undefined;
  return {
    db: database.db,
    dialect: database.dialect,
    config,
    logger: overrides.logger ?? createLogger(config.logLevel),
    wakeWorker: overrides.wakeWorker ?? (() => {}),
    processing,
    search: {
      coveredSpaces: new Set(),
      spaceSizes: new Map(),
      exactVectors: createExactVectorCache(config.search.exactCacheBytes),
    },
    fanOut: { burstSize: 0 },
    seed: { seeded: new Set(), inFlight: new Map() },
    close() {
      closing ??= Promise.all([processing.close(), opened?.close()]).then(() => {});
      return closing;
    },
  };
}
