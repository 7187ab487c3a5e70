import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import type { ProcessingSettings } from '../../../config.ts';
import { AppError } from '../../../lib/errors.ts';
import type { Answer, AskNote } from '../../ask/extractive.ts';
import type { ParsedImport } from '../../imports/imported-note.ts';
import type { ImportFileTask } from '../../imports/parse-import.ts';
import type { Chunk, NoteContent } from '../../search/chunk-note.ts';
import { type PreparedTranscript, prepareTranscriptText } from '../../transcripts/prepared-transcript.ts';
import type { Analysis, AnalysisInput } from '../analyze-builtin.ts';
import type {
  JsonBodyOptions,
  ParsedTranscriptBody,
  ProcessingOutcome,
  ProcessingTask,
} from './processing.worker.ts';

/**
 * The worker threads that parse, analyze and chunk transcripts, so that a large or hostile transcript never
 * holds up the API's event loop (PROCESSING_THREADS). One pool per Deps (`deps.processing`, made by createDeps
 * from config.processing and closed by deps.close()); its threads start on first use. A task given an
 * AbortSignal is stopped when it aborts: its thread is terminated (a regular expression cannot be interrupted
 * any other way) and a fresh one takes its place.
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

/** The CPU-heavy stages, each in a processing thread. */
export interface ProcessingPool {
  /** parseTranscript + prepareTranscript in a thread (in place for a small transcript). */
  prepareTranscript(transcript: string, signal?: AbortSignal): Promise<PreparedTranscript>;
  /**
   * parseJsonBody of a request's UTF-8 bytes in a thread (for large bodies: small ones cost more to send). With
   * `transcript`, the body's `transcript` is prepared in the same trip when it fits the limit and parses; with
   * `fingerprintOf`, its Idempotency-Key fingerprint is taken.
   */
  parseJson(bytes: Uint8Array, options?: JsonBodyOptions): Promise<ParsedTranscriptBody>;
  /** The builtin analyzer in a thread. */
  analyze(input: AnalysisInput, signal?: AbortSignal): Promise<Analysis>;
  /** chunkNote in a thread. */
  chunk(content: NoteContent, signal?: AbortSignal): Promise<Chunk[]>;
  /** The extractive answer to a question from the notes search located (in the requests thread: someone waits). */
  ask(question: string, notes: AskNote[], maxCitations: number, signal?: AbortSignal): Promise<Answer>;
  /** One file of an export read into notes (parseImportFile) in a thread. */
  parseImport(task: ImportFileTask): Promise<ParsedImport>;
  /** Keeps a thread busy for `ms` (tests and benchmarks of the budget). */
  spin(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Stops the threads once the tasks in hand are done (at shutdown; a task's budget bounds the wait); a later
   * task starts them again.
   */
  close(): Promise<void>;
}

/**
 * Two piscina pools, each made on its first task: `jobs` (`threads` threads) for the pipeline's analysis and
 * chunking, `requests` (one thread) for the parsing a request waits for, so that a POST never queues behind a
 * long analysis.
 */
export function createProcessingPool(settings: Pick<ProcessingSettings, 'threads'>): ProcessingPool {
  const pools: { jobs?: Piscina; requests?: Piscina } = {};
  const getPool = (name: keyof typeof pools): Piscina => {
    pools[name] ??= new Piscina({
      filename: WORKER_FILE,
      maxThreads: name === 'jobs' ? settings.threads : 1,
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
  };

  async function run<T>(task: ProcessingTask, signal?: AbortSignal): Promise<T> {
    let outcome: ProcessingOutcome;
    try {
      // A budget spent before the task starts (on the analysis, say, before chunking) stops it the same way.
      signal?.throwIfAborted();
      const pool = getPool(
        task.kind === 'prepare' || task.kind === 'json' || task.kind === 'ask' ? 'requests' : 'jobs',
      );
      outcome = (await pool.run(task, signal ? { signal } : {})) as ProcessingOutcome;
    } catch (err) {
      if (signal?.aborted)
        throw new ProcessingTimeoutError('the processing thread was stopped at its time limit');
      throw err;
    }
    return unwrap<T>(outcome);
  }

  return {
    async prepareTranscript(transcript, signal) {
      if (transcript.length <= INLINE_PARSE_CHARS) return prepareTranscriptText(transcript);
      return run({ kind: 'prepare', transcript }, signal);
    },
    parseJson: (bytes, options = {}) => run({ kind: 'json', bytes, ...options }),
    analyze: (input, signal) => run({ kind: 'analyze', input }, signal),
    chunk: (content, signal) => run({ kind: 'chunk', content }, signal),
    ask: (question, notes, maxCitations, signal) =>
      run({ kind: 'ask', question, notes, maxCitations }, signal),
    parseImport: (task) => run({ kind: 'import', ...task }),
    spin: (ms, signal) => run({ kind: 'spin', ms }, signal),
    async close() {
      const old = [pools.jobs, pools.requests];
      pools.jobs = undefined;
      pools.requests = undefined;
      // Not terminated mid-task: a thread stopped while its sentence model loads aborts the whole process
      // (onnxruntime). piscina's close waits for the tasks in hand (up to its closeTimeout), then ends the threads.
      await Promise.all(old.map((p) => p?.close({ force: false }).catch(() => p.destroy())));
    },
  };
}

/** A task stopped by its budget. */
export class ProcessingTimeoutError extends Error {
  override name = 'ProcessingTimeoutError';
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
