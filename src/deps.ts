import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Db, Dialect } from './db/schema.ts';

/** What routes, workers and the CLI share: built once in main.ts (or the test harness). */
export interface Deps {
  db: Db;
  dialect: Dialect;
  config: Config;
  logger: Logger;
  /** Wakes the in-process worker when a job is enqueued (no-op when the worker runs elsewhere). */
  wakeWorker: () => void;
}
