import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import type { ProcessingSettings } from '../../../config.ts';
import { AppError } from '../../../lib/errors.ts';
import type { ParsedJsonBody } from '../../../lib/parse-json-body.ts';
import type { Chunk, NoteContent } from '../../search/chunk-note.ts';
import type { Analysis, AnalysisInput } from '../analyze-builtin.ts';
import { parseTranscript } from '../parse-transcript.ts';
import { type PreparedTranscript, prepareTranscript } from '../prepared-transcript.ts';
import type { ProcessingOutcome, ProcessingTask } from './processing.worker.ts';

/**
 * The worker threads that parse, analyze and chunk transcripts, so that a large or hostile transcript never
 * holds up the API's event loop (PROCESSING_THREADS). One pool per process, created on first use. A task given
 * an AbortSignal is stopped when it aborts: its thread is terminated (a regular expression cannot be
 * interrupted any other way) and a fresh one takes its place.
 *
 * The thread runs processing.worker.ts: under tsx and vitest that source file, loaded through tsx; in the
 * bundle `npm start` runs, dist/processing-worker.js beside dist/main.js (scripts/build.js builds both).
 */
const fromSource = import.meta.url.endsWith('.ts');
const WORKER_FILE = fromSource
  ? new URL('./processing.worker.ts', import.meta.url).href
  : new URL('./processing-worker.js', import.meta.url).href;

/** An idle thread is kept this long for the next task, then stopped (an API-only node keeps none). */
const IDLE_MS = 60_000;

let settings: Pick<ProcessingSettings, 'threads'> | undefined;
/**
 * Two pools: `jobs` (PROCESSING_THREADS threads) for the pipeline's analysis and chunking, `requests` (one
 * thread) for the parsing a request waits for, so that a POST never queues behind a long analysis.
 */
const pools: { jobs?: Piscina; requests?: Piscina } = {};
type PoolName = keyof typeof pools;

/** Sets the pool's size from the configuration; takes effect when the pool is (re)created. */
export function configureProcessingPool(processing: Pick<ProcessingSettings, 'threads'>): void {
  const old = pools.jobs;
  if (old && settings?.threads !== processing.threads) {
    pools.jobs = undefined;
    void old.close({ force: false }).catch(() => {});
  }
  settings = processing;
}

function getPool(name: PoolName): Piscina {
  pools[name] ??= new Piscina({
    filename: WORKER_FILE,
    maxThreads: name === 'jobs' ? (settings?.threads ?? 1) : 1,
    minThreads: 0,
    idleTimeout: IDLE_MS,
    // Every task is CPU-bound: one at a time per thread.
    concurrentTasksPerWorker: 1,
    // tsx found from this file, not from the working directory (`minutes` may run anywhere).
    ...(fromSource
      ? { execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] }
      : {}),
  });
  return pools[name];
}

/** Stops the threads (at shutdown); a later task starts new pools. */
export async function closeProcessingPool(): Promise<void> {
  const old = [pools.jobs, pools.requests];
  pools.jobs = undefined;
  pools.requests = undefined;
  await Promise.all(old.map((p) => p?.destroy()));
}

/** A task stopped by its budget. */
export class ProcessingTimeoutError extends Error {
  override name = 'ProcessingTimeoutError';
}

async function run(task: ProcessingTask, signal?: AbortSignal): Promise<ProcessingOutcome> {
  try {
    // A budget spent before the task starts (on the analysis, say, before chunking) stops it the same way.
    signal?.throwIfAborted();
    const pool = getPool(task.kind === 'prepare' || task.kind === 'json' ? 'requests' : 'jobs');
    return (await pool.run(task, signal ? { signal } : {})) as ProcessingOutcome;
  } catch (err) {
    if (signal?.aborted)
      throw new ProcessingTimeoutError('the processing thread was stopped at its time limit');
    throw err;
  }
}

function unwrap<T>(outcome: ProcessingOutcome): T {
  if (!outcome.ok) {
    const { code, message, param } = outcome.error;
    throw new AppError(code, message, param ? { param } : {});
  }
  return outcome.value as T;
}

/** Below this many characters a transcript is prepared in place: the trip to a thread would cost more. */
const INLINE_PARSE_CHARS = 32 * 1024;

/** parseTranscript + prepareTranscript in a thread (in place for a small transcript). */
export async function prepareTranscriptOffThread(
  transcript: string,
  signal?: AbortSignal,
): Promise<PreparedTranscript> {
  if (transcript.length <= INLINE_PARSE_CHARS) return prepareTranscript(parseTranscript(transcript));
  return unwrap(await run({ kind: 'prepare', transcript }, signal));
}

/** parseJsonBody of a request's UTF-8 bytes in a thread (for large bodies: small ones cost more to send). */
export async function parseJsonOffThread(bytes: Uint8Array): Promise<ParsedJsonBody> {
  return unwrap(await run({ kind: 'json', bytes }));
}

/** The builtin analyzer in a thread. */
export async function analyzeOffThread(input: AnalysisInput, signal?: AbortSignal): Promise<Analysis> {
  return unwrap(await run({ kind: 'analyze', input }, signal));
}

/** chunkNote in a thread. */
export async function chunkOffThread(content: NoteContent, signal?: AbortSignal): Promise<Chunk[]> {
  return unwrap(await run({ kind: 'chunk', content }, signal));
}

/** Keeps a thread busy for `ms` (tests and benchmarks of the budget). */
export async function spinOffThread(ms: number, signal?: AbortSignal): Promise<void> {
  unwrap(await run({ kind: 'spin', ms }, signal));
}
