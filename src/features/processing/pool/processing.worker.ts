import { AppError, type ErrorCode } from '../../../lib/errors.ts';
import { lowerThreadPriority } from '../../../lib/thread-priority.ts';
import { type Chunk, chunkNote, type NoteContent } from '../../search/chunk-note.ts';
import { type Analysis, type AnalysisInput, analyzeTranscriptWithModel } from '../analyze-builtin.ts';
import { parseTranscript, type TranscriptSegment } from '../parse-transcript.ts';

/**
 * The entry of a processing thread (see processing-pool.ts): the CPU-heavy stages of the pipeline, each a pure
 * function of its input. Bundled as dist/processing-worker.js by scripts/build.js.
 */
export type ProcessingTask =
  | { kind: 'parse'; transcript: string }
  | { kind: 'analyze'; input: AnalysisInput }
  | { kind: 'chunk'; content: NoteContent }
  /** For tests and benchmarks of the budget: keeps the thread busy this long. */
  | { kind: 'spin'; ms: number };

/** What a task gives back; an AppError (a transcript with no text) is passed on as data, as errors lose their class. */
export type ProcessingOutcome =
  | { ok: true; value: TranscriptSegment[] | Analysis | Chunk[] | null }
  | { ok: false; error: { code: ErrorCode; message: string; param?: string } };

// This thread yields the CPU to the API's.
lowerThreadPriority();

export default async function runProcessingTask(task: ProcessingTask): Promise<ProcessingOutcome> {
  try {
    switch (task.kind) {
      case 'parse':
        return { ok: true, value: parseTranscript(task.transcript) };
      case 'analyze':
        return { ok: true, value: await analyzeTranscriptWithModel(task.input) };
      case 'chunk':
        return { ok: true, value: chunkNote(task.content) };
      case 'spin': {
        const until = Date.now() + task.ms;
        while (Date.now() < until) {
          // busy on purpose
        }
        return { ok: true, value: null };
      }
    }
  } catch (err) {
    if (err instanceof AppError) {
      return { ok: false, error: { code: err.code, message: err.message, param: err.details.param } };
    }
    throw err;
  }
}
