import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Db, Mode } from '../db/schema.ts';
import type { Deps } from '../deps.ts';

/** The claimed job a handler runs for. */
export interface JobRun {
  id: string;
  type: string;
  accountId: string;
  mode: Mode;
  /** 1 on the first try; counts every claim, including tries whose worker died. */
  attempt: number;
  maxAttempts: number;
}

export interface JobContext {
  deps: Deps;
  job: JobRun;
  /** Tagged with the job id, type and attempt. */
  logger: Logger;
}

export interface FinalFailureContext extends JobContext {
  /**
   * The transaction that marks the job failed: write through it so both happen or neither does (and on
   * SQLite, a write through deps.db would wait for this transaction forever).
   */
  db: Db;
  /** The last error, as stored in `jobs.last_error`. */
  error: string;
  /** The error object when the last attempt threw; absent when its worker died (lease expired). */
  cause?: unknown;
}

/**
 * A job type: its payload schema (validated when the job is claimed), the handler, and what to do when
 * the job has failed for good. A handler signals failure by throwing; it must be idempotent, because a
 * job runs at least once (a worker may die after the work but before recording it).
 */
export interface JobDefinition<Schema extends z.ZodType = z.ZodType> {
  payload: Schema;
  run(payload: z.output<Schema>, ctx: JobContext): Promise<void>;
  /** Runs once, when the last attempt failed, so nothing the job was responsible for stays pending. */
  onFinalFailure?(payload: z.output<Schema>, ctx: FinalFailureContext): Promise<void>;
}

/** Job type → definition. */
export type JobCatalog = Readonly<Record<string, JobDefinition>>;

/** Declares a job type with its payload type inferred from the schema. */
export function defineJob<Schema extends z.ZodType>(
  definition: JobDefinition<Schema>,
): JobDefinition<Schema> {
  return definition;
}
