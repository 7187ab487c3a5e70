import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { type DatabaseHandle, openDatabase } from './db/connect.ts';
import type { Db, Dialect } from './db/schema.ts';
import { createProcessingPool, type ProcessingPool } from './features/processing/pool/processing-pool.ts';
import type { Analyzer } from './features/processing/providers/analyzer.ts';
import { createAnalyzer } from './features/processing/providers/create-analyzer.ts';
import { createTranscriber } from './features/processing/providers/create-transcriber.ts';
import type { Transcriber } from './features/processing/providers/transcriber.ts';
import { createSearch, type Search } from './features/search/search.ts';
import type { AudioStorage } from './features/storage/audio-storage.ts';
import { createAudioStorage } from './features/storage/create-audio-storage.ts';
import { createOutboundAgents, type OutboundAgents } from './features/webhooks/outbound/guarded-request.ts';
import { createLogger } from './lib/logger.ts';

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
  /** Search: its engine, readiness, reranker and caches (features/search/search.ts). */
  search: Search;
  /** Where recordings' audio files are kept (DATA_DIR/audio). */
  audio: AudioStorage;
  /** Turns a transcript into a title, summary, action items and highlights (ANALYZER). */
  analyzer: Analyzer;
  /** Turns audio into a transcript (TRANSCRIBER); undefined when none is configured. */
  transcriber: Transcriber | undefined;
  /** Keep-alive connections for webhook deliveries and test events; opened only through vetted lookups. */
  outbound: OutboundAgents;
  fanOut: FanOutState;
  seed: SeedState;
  /**
   * Closes what createDeps opened (search's embedder, the processing threads, outbound connections; the database unless it was given);
   * idempotent.
   */
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
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const search = createSearch({ db: database.db, dialect: database.dialect, config, logger });
  const outbound = createOutboundAgents(config.webhookDelivery.concurrency);
  let closing: Promise<void> | undefined;
  return {
    db: database.db,
    dialect: database.dialect,
    config,
    logger,
    wakeWorker: overrides.wakeWorker ?? (() => {}),
    processing,
    search,
    audio: createAudioStorage(config),
    analyzer: createAnalyzer(config.analysis),
    transcriber: createTranscriber(config.transcription),
    outbound,
    fanOut: { burstSize: 0 },
    seed: { seeded: new Set(), inFlight: new Map() },
    close() {
      // Search first: an engine still initialising reads the database.
      closing ??= search
        .close()
        .then(() => Promise.all([processing.close(), opened?.close(), outbound.destroy()]))
        .then(() => {});
      return closing;
    },
  };
}
