import type { Logger } from 'pino';
import { z } from 'zod';
import type { ActionItemsTable, Db, HighlightsTable, Mode } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { defineJob } from '../../jobs/define-job.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { newId } from '../../lib/ids.ts';
import type { Space } from '../../lib/space.ts';
import { nowIso, toIso } from '../../lib/time.ts';
import { readImportedExtractions } from '../imports/imported-extractions.service.ts';
import { findStoredNote, storedSegments, storedSpeakers } from '../notes/stored-note.service.ts';
import type { AudioStorage } from '../storage/audio-storage.ts';
import { prepareTranscript } from '../transcripts/prepared-transcript.ts';
import { insertTranscript } from '../transcripts/store-transcript.ts';
import { sentenceModelSettings } from './action-items/sentence-model.ts';
import type { Analysis } from './analyze-builtin.ts';
import { failNote } from './fail-note.ts';
import { ProcessingTimeoutError } from './pool/processing-pool.ts';
import { processingRepo } from './processing.repo.ts';
import { overBudget, ProcessingError } from './processing-error.ts';
import { AnalysisImpossibleError, type Analyzer, builtinAnalyzer } from './providers/analyzer.ts';
import { ProviderError } from './providers/provider-error.ts';
import { NO_TRANSCRIBER_REASON, type Transcriber } from './providers/transcriber.ts';
import { publishWithIndex } from './publish-note.ts';

export const PROCESS_NOTE_JOB = 'process_note';

/** Queues the analysis of a note; call inside the transaction that created the note. */
export function enqueueProcessing(
  db: Db,
  space: { accountId: string; mode: Mode },
  noteId: string,
  maxAttempts: number,
) {
  return enqueueJob(db, { ...space, type: PROCESS_NOTE_JOB, payload: { note_id: noteId }, maxAttempts });
}

export const ProcessNotePayload = z.object({ note_id: z.string().min(1) });
export type ProcessNotePayload = z.infer<typeof ProcessNotePayload>;

/**
 * The pipeline of one note: transcribe (a note made from audio, once), then analyze and publish. Idempotent
 * stage by stage: a stored transcript is not transcribed again, a deleted note or one that is ready already is
 * left alone, and a note sent back to processing gets its action items and highlights replaced, not doubled.
 */
export const processNoteJob = defineJob({
  payload: ProcessNotePayload,
  run: async ({ note_id }, { deps, job, logger }) => {
    await processNote({
      deps,
      space: { accountId: job.accountId, mode: job.mode },
      noteId: note_id,
      logger,
      analyzer: deps.analyzer,
      transcription: { transcriber: deps.transcriber, storage: deps.audio },
      lastAttempt: job.attempt >= job.maxAttempts,
    });
  },
  // Never leave a note in `processing` once its job has given up.
  onFinalFailure: async ({ note_id }, { db, job, cause, logger }) => {
    const reason = describeFailure(cause, job.maxAttempts);
    const marked = await failNote(
      db,
      { accountId: job.accountId, mode: job.mode },
      note_id,
      reason,
      nowIso(),
    );
    if (marked) logger.warn({ note_id, reason }, 'note processing failed');
  },
});

/** What the owner reads: our own messages as they are, anything else without internals. */
function describeFailure(cause: unknown, attempts: number): string {
  if (cause instanceof ProcessingError) return cause.message;
  if (cause === undefined) return `Processing was interrupted and was abandoned after ${attempts} attempts.`;
  return `Processing failed after ${attempts} attempts because of an internal error.`;
}

export interface ProcessNoteOptions {
  /** The database, and the search engine the note is indexed with. */
  deps: Deps;
  space: Space;
  noteId: string;
  logger: Logger;
  /** The builtin analyzer unless given. */
  analyzer?: Analyzer;
  /** For notes made from audio: where the audio is and who transcribes it (none configured: the note fails). */
  transcription?: { transcriber: Transcriber | undefined; storage: AudioStorage };
  /**
   * The job's last attempt: providers settle for their fallback instead of asking for a retry (an embedder that
   * fails then leaves the note indexed for keyword search only, rather than failing it).
   */
  lastAttempt?: boolean;
}

/**
 * Runs the pipeline of one note: transcription first when the note was made from audio and has no transcript
 * yet (committed on its own, so a retry does not transcribe again), then analysis, then the note's search
 * index entries are chunked and embedded (outside any transaction: the embedder may be a remote provider),
 * and, in one transaction, it stores action items and highlights, marks the note ready (keeping a title the
 * user set), writes the search index entries and writes `action_item.created` per item, then
 * `note.processed`. So a note is searchable when `note.processed` is delivered, and a failure of any of it
 * publishes nothing (the job retries). A failure retrying cannot fix (no transcriber configured, the
 * provider refusing the audio, no speech) marks the note failed at once with the reason.
 */
export async function processNote({
  deps,
  space,
  noteId,
  logger,
  analyzer = builtinAnalyzer,
  transcription,
  lastAttempt = true,
}: ProcessNoteOptions): Promise<'processed' | 'skipped' | 'failed'> {
  const { db } = deps;
  const note = await findStoredNote(db, space, noteId);
  if (!note || note.status === 'ready') {
    logger.info({ note_id: noteId }, note ? 'note is ready already' : 'note was deleted; nothing to process');
    return 'skipped';
  }
  let segments = await storedSegments(db, noteId);
  if (!segments.length && note.recording_id) {
    const transcribed = await transcribeNote({
      db,
      space,
      noteId,
      recordingId: note.recording_id,
      logger,
      transcription,
    });
    if (transcribed === 'failed') return 'failed';
    segments = await storedSegments(db, noteId);
  }
  const speakers = await storedSpeakers(db, noteId);
  if (!segments.length) throw new ProcessingError('The note has no transcript to analyze.');
  // The budget of the CPU work below (analysis and chunking, in processing threads): a thread still at it when
  // the budget runs out is stopped, and this attempt fails with a reason the owner can read.
  const budgetMs = deps.config.processing.timeoutMs;
  const budget = AbortSignal.timeout(budgetMs);
  let analysis: Awaited<ReturnType<Analyzer['analyze']>>;
  const sentenceModel = sentenceModelSettings(deps.config);
  try {
    analysis = await analyzer.analyze(
      {
        segments: segments.map((s) => ({ ...s, start_ms: Number(s.start_ms), end_ms: Number(s.end_ms) })),
        speakers,
        createdAt: note.created_at,
        ...(note.language ? { language: note.language } : {}),
        // The action-item detector's sentence vectors, with EMBEDDER=builtin (the analyzer loads the model).
        ...(sentenceModel ? { sentenceModel } : {}),
      },
      { logger, lastAttempt, signal: budget, pool: deps.processing },
    );
  } catch (err) {
    if (err instanceof ProcessingTimeoutError) throw overBudget(budgetMs);
    if (err instanceof AnalysisImpossibleError) {
      await failNote(db, space, noteId, err.message, nowIso());
      logger.warn({ note_id: noteId, reason: err.message }, 'note processing failed');
      return 'failed';
    }
    // Only errors that may pass reach here (the analyzer falls back otherwise): let the job retry.
    if (err instanceof ProviderError) throw new ProcessingError(err.message);
    throw err;
  }

  const now = Date.now();
  const { actionItems, highlights, sortedHighlights } = await analysisRows(db, space, note, analysis, now);
  return publishWithIndex(
    {
      deps,
      space,
      noteId,
      logger,
      analysis,
      now,
      segments,
      speakers,
      actionItems,
      highlights,
      sortedHighlights,
      lastAttempt,
      budget,
      budgetMs,
    },
    note,
  );
}

/**
 * The action items and highlights a note publishes: an imported note keeps what its source extracted, the
 * analysis fills only what the source did not have.
 */
async function analysisRows(
  db: Db,
  space: Space,
  note: { id: string; source?: string | null },
  analysis: Analysis,
  now: number,
) {
  const noteId = note.id;
  const owned = { note_id: noteId, account_id: space.accountId, mode: space.mode };
  const fromSource = note.source ? await readImportedExtractions(db, noteId) : undefined;
  const analysed: ActionItemsTable[] = analysis.action_items.map((item, i) => {
    // One millisecond apart, so that listings ordered by created_at show the items in transcript order.
    const createdAt = toIso(now + i);
    return {
      ...owned,
      id: newId('actionItem'),
      text: item.text,
      assignee: item.assignee ?? null,
      due: item.due ?? null,
      status: 'pending',
      created_at: createdAt,
      updated_at: createdAt,
      completed_at: null,
    };
  });
  const actionItems = fromSource?.actionItems.length ? fromSource.actionItems : analysed;
  const highlights: HighlightsTable[] = fromSource?.highlights.length
    ? fromSource.highlights
    : analysis.highlights.map((h) => ({
        ...owned,
        id: newId('highlight'),
        timestamp_ms: h.timestamp_ms,
        text: h.text,
        created_at: toIso(now),
      }));
  // The order GET /v1/notes/:id (and the search index, when it re-reads the note) uses.
  const sortedHighlights = [...highlights].sort(
    (a, b) => a.timestamp_ms - b.timestamp_ms || compareIds(a.id, b.id),
  );
  return { actionItems, highlights, sortedHighlights };
}

/**
 * Transcribes the audio of a note and stores segments, speakers and transcript text in one transaction.
 * `failed`: the note was marked failed with a reason (nothing to retry). A failure that may pass is thrown.
 */
async function transcribeNote({
  db,
  space,
  noteId,
  recordingId,
  logger,
  transcription,
}: {
  db: Db;
  space: Space;
  noteId: string;
  recordingId: string;
  logger: Logger;
  transcription: ProcessNoteOptions['transcription'];
}): Promise<'transcribed' | 'failed' | 'no-audio'> {
  const recording = await processingRepo.findRecording(db, space, recordingId);
  if (!recording?.storage_key) return 'no-audio';
  const fail = async (reason: string) => {
    await failNote(db, space, noteId, reason, nowIso());
    logger.warn({ note_id: noteId, reason }, 'note processing failed');
    return 'failed' as const;
  };
  if (!transcription?.transcriber) return fail(NO_TRANSCRIBER_REASON);
  const { transcriber, storage } = transcription;
  const key = recording.storage_key;
  if ((await storage.size(key)) === undefined) {
    return fail('The audio file of this recording is missing from storage, so it cannot be transcribed.');
  }
  let segments: Awaited<ReturnType<Transcriber['transcribe']>>;
  const started = Date.now();
  try {
    segments = await storage.withLocalFile(key, (path) =>
      transcriber.transcribe({
        path,
        contentType: recording.content_type,
        filename: `audio${/\.[a-z0-9]+$/.exec(key)?.[0] ?? ''}`,
        ...(recording.language ? { language: recording.language } : {}),
      }),
    );
  } catch (err) {
    if (err instanceof ProviderError) {
      if (!err.retryable) return fail(err.message);
      throw new ProcessingError(err.message);
    }
    throw err;
  }
  if (!segments.length) return fail('No speech was recognised in the recording.');
  const prepared = prepareTranscript(segments);
  const stored = await db.transaction().execute(async (trx) =>
    processingRepo.storeTranscript(trx, space, noteId, {
      transcript: prepared.rendered,
      durationSeconds: recording.duration_seconds ?? Math.ceil(prepared.durationMs / 1000),
      now: nowIso(),
      insertSegments: (inTrx) => insertTranscript(inTrx, space, noteId, prepared),
    }),
  );
  logger.info(
    { note_id: noteId, segments: segments.length, duration_ms: Date.now() - started, stored },
    'recording transcribed',
  );
  return 'transcribed';
}

/** Bytewise comparison, as ids are ordered by the database (COLLATE "C"). */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
