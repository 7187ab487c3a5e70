import type { Logger } from 'pino';
import { z } from 'zod';
import type { ActionItemsTable, Db, HighlightsTable, Mode } from '../../db/schema.ts';
import { defineJob } from '../../jobs/define-job.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { newId } from '../../lib/ids.ts';
import { nowIso, toIso } from '../../lib/time.ts';
import { toActionItem } from '../action-items/action-items.view.ts';
import { recordEvent } from '../events/events.ts';
import { notesRepo } from '../notes/notes.repo.ts';
import { toNoteDetail } from '../notes/notes.view.ts';
import { analyzeTranscript } from './analyze-builtin.ts';
import { processingRepo, type Space } from './processing.repo.ts';

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

/** A failure whose message is meant for the note's owner (shown as `failure_reason`). */
export class ProcessingError extends Error {
  override name = 'ProcessingError';
}

export const ProcessNotePayload = z.object({ note_id: z.string().min(1) });
export type ProcessNotePayload = z.infer<typeof ProcessNotePayload>;

/**
 * Analyzes a note and publishes the result. Idempotent: a deleted note or one that is ready already is
 * left alone, and a note sent back to processing gets its action items and highlights replaced, not doubled.
 */
export const processNoteJob = defineJob({
  payload: ProcessNotePayload,
  run: async ({ note_id }, { deps, job, logger }) => {
    await processNote({
      db: deps.db,
      space: { accountId: job.accountId, mode: job.mode },
      noteId: note_id,
      logger,
    });
  },
  // Never leave a note in `processing` once its job has given up.
  onFinalFailure: async ({ note_id }, { db, job, cause, logger }) => {
    const reason = describeFailure(cause, job.maxAttempts);
    const marked = await processingRepo.markFailed(
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

/**
 * Runs the analysis of one note and, in one transaction, stores action items and highlights, marks the
 * note ready (keeping a title the user set) and writes `action_item.created` per item, then `note.processed`.
 */
export async function processNote({
  db,
  space,
  noteId,
  logger,
}: {
  db: Db;
  space: Space;
  noteId: string;
  logger: Logger;
}): Promise<'processed' | 'skipped'> {
  const note = await notesRepo.find(db, space, noteId);
  if (!note || note.status === 'ready') {
    logger.info({ note_id: noteId }, note ? 'note is ready already' : 'note was deleted; nothing to process');
    return 'skipped';
  }
  const [segments, speakers] = await Promise.all([
    notesRepo.segments(db, noteId),
    notesRepo.speakers(db, noteId),
  ]);
  if (!segments.length) throw new ProcessingError('The note has no transcript to analyze.');
  const analysis = analyzeTranscript({
    segments: segments.map((s) => ({ ...s, start_ms: Number(s.start_ms), end_ms: Number(s.end_ms) })),
    speakers,
    createdAt: note.created_at,
  });

  return db.transaction().execute(async (trx) => {
    const now = Date.now();
    const updated = await processingRepo.markReady(trx, space, noteId, {
      title: analysis.title,
      summary: analysis.summary,
      now: toIso(now),
    });
    // Deleted, or finished by another worker, since it was read above.
    if (!updated) return 'skipped';

    const owned = { note_id: noteId, account_id: space.accountId, mode: space.mode };
    const actionItems: ActionItemsTable[] = analysis.action_items.map((item, i) => {
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
    const highlights: HighlightsTable[] = analysis.highlights.map((h) => ({
      ...owned,
      id: newId('highlight'),
      timestamp_ms: h.timestamp_ms,
      text: h.text,
      created_at: toIso(now),
    }));
    await processingRepo.replaceActionItems(trx, noteId, actionItems);
    await processingRepo.replaceHighlights(trx, noteId, highlights);

    for (const item of actionItems) await recordEvent(trx, space, 'action_item.created', toActionItem(item));
    const detail = toNoteDetail(
      updated,
      {
        segments: [],
        speakers,
        // The order GET /v1/notes/:id uses, so the event and the API agree.
        highlights: [...highlights].sort((a, b) => a.timestamp_ms - b.timestamp_ms || compareIds(a.id, b.id)),
        actionItems,
      },
      false,
    );
    await recordEvent(trx, space, 'note.processed', detail);
    logger.info(
      { note_id: noteId, action_items: actionItems.length, highlights: highlights.length },
      'note processed',
    );
    return 'processed';
  });
}

/** Bytewise comparison, as ids are ordered by the database (COLLATE "C"). */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
