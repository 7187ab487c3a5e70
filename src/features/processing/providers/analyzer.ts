import type { Logger } from 'pino';
import type { Analysis, AnalysisInput } from '../analyze-builtin.ts';
import type { ProcessingPool } from '../pool/processing-pool.ts';

export interface AnalyzeContext {
  logger: Logger;
  /** True on the job's last attempt: a provider that could retry must settle for its fallback instead. */
  lastAttempt: boolean;
  /** The job's time budget: work still running when it aborts is stopped. */
  signal?: AbortSignal;
  /** The processing threads the builtin analysis runs in (`deps.processing`). */
  pool: ProcessingPool;
}

/**
 * The provider cannot analyse this transcript at all, and retrying will not change that (its context window
 * cannot hold one line of it): the note fails at once with `message` as its reason.
 */
export class AnalysisImpossibleError extends Error {
  override name = 'AnalysisImpossibleError';
}

/** Transcript → title, summary, action items and highlights. */
export interface Analyzer {
  readonly name: string;
  analyze(input: AnalysisInput, ctx: AnalyzeContext): Promise<Analysis>;
}

/** The offline analyzer: deterministic, no network; runs in a processing thread, never on the event loop. */
export const builtinAnalyzer: Analyzer = {
  name: 'builtin',
  analyze: (input, ctx) => ctx.pool.analyze(input, ctx.signal),
};
