import { move, transferableSymbol, valueSymbol } from 'piscina';
import { AppError, type ErrorCode } from '../../../lib/errors.ts';
import { type ParsedJsonBody, parseJsonBody } from '../../../lib/parse-json-body.ts';
import { requestFingerprint, serializedBody } from '../../../lib/request-fingerprint.ts';
import { lowerThreadPriority } from '../../../lib/thread-priority.ts';
import { type Answer, type AskNote, answerExtractively, DEFAULT_EXTRACTIVE } from '../../ask/extractive.ts';
import type { ParsedImport } from '../../imports/imported-note.ts';
import { type ImportFileTask, parseImportFile } from '../../imports/parse-import.ts';
import { type Chunk, chunkNote, type NoteContent } from '../../search/chunk-note.ts';
import {
  type PreparedTranscript,
  prepareTranscriptText,
  type TranscriptUse,
  transferablesOf,
} from '../../transcripts/prepared-transcript.ts';
import { type Analysis, type AnalysisInput, analyzeTranscriptWithModel } from '../analyze-builtin.ts';

/**
 * The entry of a processing thread (see processing-pool.ts): the CPU-heavy stages of the pipeline, each a pure
 * function of its input. Bundled as dist/processing-worker.js by scripts/build.js.
 */
export type ProcessingTask =
  /** A transcript's text, parsed and packed for storing (PreparedTranscript). */
  | { kind: 'prepare'; transcript: string }
  /**
   * A request's JSON body, as UTF-8 bytes. With `transcript`, a `transcript` string in it (of at most `limit`
   * bytes) is prepared in the same trip (ParsedTranscriptBody), for its `use`. With `fingerprintOf`
   * (`METHOD path`), the request's Idempotency-Key fingerprint is taken too.
   */
  | ({ kind: 'json'; bytes: Uint8Array } & JsonBodyOptions)
  | { kind: 'analyze'; input: AnalysisInput }
  | { kind: 'chunk'; content: NoteContent }
  /** A question answered extractively from the notes search located. */
  | { kind: 'ask'; question: string; notes: AskNote[]; maxCitations: number }
  /** One file of a Limitless, Omi or Minutes export, read into notes. */
  | ({ kind: 'import' } & ImportFileTask)
  /** For tests and benchmarks of the budget: keeps the thread busy this long. */
  | { kind: 'spin'; ms: number };

/** What a task gives back; an AppError (a transcript with no text) is passed on as data, as errors lose their class. */
export type ProcessingOutcome =
  | {
      ok: true;
      value: PreparedTranscript | ParsedTranscriptBody | Analysis | Chunk[] | Answer | ParsedImport | null;
    }
  | { ok: false; error: { code: ErrorCode; message: string; param?: string } };

/** What a thread does besides parsing a request's JSON body (see the `json` task). */
export interface JsonBodyOptions {
  transcript?: { limit: number; use: TranscriptUse } | undefined;
  fingerprintOf?: string | undefined;
}

/** A request body read in a thread, with its transcript prepared when the task asked and it could be. */
export interface ParsedTranscriptBody extends ParsedJsonBody {
  prepared?: PreparedTranscript;
  /** The request's Idempotency-Key fingerprint (requestFingerprint), when the task asked for it. */
  fingerprint?: string;
}

/** An outcome whose typed arrays are moved to the receiving thread, not copied (see Piscina.move). */
type Movable = ReturnType<typeof move>;

function moved(outcome: ProcessingOutcome, buffers: ArrayBuffer[]): Movable {
  return move({
    get [transferableSymbol]() {
      return buffers;
    },
    get [valueSymbol]() {
      return outcome;
    },
  });
}

// This thread yields the CPU to the API's.
lowerThreadPriority();

export default async function runProcessingTask(task: ProcessingTask): Promise<ProcessingOutcome | Movable> {
  try {
    switch (task.kind) {
      case 'prepare': {
        const prepared = prepareTranscriptText(task.transcript);
        return moved({ ok: true, value: prepared }, transferablesOf(prepared));
      }
      case 'json': {
        const { bytes, fingerprintOf } = task;
        const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
        const body: ParsedTranscriptBody = parseJsonBody(text);
        if (fingerprintOf !== undefined)
          body.fingerprint = requestFingerprint(fingerprintOf, serializedBody(body.value) ?? text);
        const transcript = body.value.transcript;
        const wanted = task.transcript;
        if (!wanted || typeof transcript !== 'string') return { ok: true, value: body };
        if (Buffer.byteLength(transcript, 'utf8') > wanted.limit) return { ok: true, value: body };
        try {
          body.prepared = prepareTranscriptText(transcript, wanted.use);
        } catch (err) {
          // The service prepares it again and answers the error, after the body's validation as always.
          if (err instanceof AppError) return { ok: true, value: body };
          throw err;
        }
        return moved({ ok: true, value: body }, transferablesOf(body.prepared));
      }
      case 'analyze':
        return { ok: true, value: await analyzeTranscriptWithModel(task.input) };
      case 'chunk':
        return { ok: true, value: chunkNote(task.content) };
      case 'ask':
        return {
          ok: true,
          value: answerExtractively(task.question, task.notes, {
            ...DEFAULT_EXTRACTIVE,
            maxCitations: task.maxCitations,
          }),
        };
      case 'import':
        return { ok: true, value: parseImportFile(task) };
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
