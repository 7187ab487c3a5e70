import { inSpace } from '../../db/in-space.ts';
import { insertInBatches } from '../../db/insert-in-batches.ts';
import type { ActionItemsTable, Db, HighlightsTable } from '../../db/schema.ts';
import type { Space } from '../../lib/space.ts';
import { NOTE_CONTENT_COLUMNS } from '../notes/note-columns.ts';

/** Every column of a note but the dialect-specific ones (seq, PostgreSQL's search_vector). */
const NOTE_COLUMNS = [
  'id',
  'account_id',
  'mode',
  ...NOTE_CONTENT_COLUMNS,
  'language',
  'analysis_notes',
] as const;

/** Writes of the processing pipeline; reads of a note go through the notes feature (stored-note.service.ts). */
export const processingRepo = {
  /**
   * Stores the analysis on the note and marks it ready, keeping a title the user set. Returns the updated
   * note, or undefined when there is nothing to do: the note was deleted, or is ready already (a re-run).
   * On PostgreSQL the UPDATE locks the row, so a concurrent delete or rename waits for this transaction.
   */
  markReady: (
    db: Db,
    space: Space,
    noteId: string,
    result: { title: string; summary: string; now: string; analysisNotes?: string | undefined },
  ) =>
    db
      .updateTable('notes')
      .set((eb) => ({
        summary: result.summary,
        analysis_notes: result.analysisNotes ?? null,
        title: eb.case().when('title_locked', '=', 1).then(eb.ref('title')).else(result.title).end(),
        status: 'ready',
        failure_reason: null,
        updated_at: result.now,
      }))
      .where('id', '=', noteId)
      .where(inSpace(space))
      .where('status', '!=', 'ready')
      .returning(NOTE_COLUMNS)
      .executeTakeFirst(),

  /**
   * Marks a note that is still processing as failed, with a reason its owner can read; returns the note as
   * updated, or undefined when it was not processing (gone, ready, failed already). Call it through failNote,
   * which also writes `note.failed`.
   */
  markFailed: (db: Db, space: Space, noteId: string, reason: string, now: string) =>
    db
      .updateTable('notes')
      .set({ status: 'failed', failure_reason: reason, updated_at: now })
      .where('id', '=', noteId)
      .where(inSpace(space))
      .where('status', '=', 'processing')
      .returning(NOTE_COLUMNS)
      .executeTakeFirst(),

  /** The recording of a note made from audio (its storage key and format), in the note's space. */
  findRecording: (db: Db, space: Space, recordingId: string) =>
    db
      .selectFrom('recordings')
      .select(['id', 'storage_key', 'content_type', 'duration_seconds', 'language'])
      .where('id', '=', recordingId)
      .where(inSpace(space))
      .executeTakeFirst(),

  /**
   * Stores what transcription produced, once: only while the note is still processing and has no segments
   * (a second worker that transcribed the same audio after a lost lease changes nothing). Call in a transaction.
   */
  async storeTranscript(
    db: Db,
    space: Space,
    noteId: string,
    result: {
      transcript: string;
      durationSeconds: number;
      now: string;
      insertSegments: (db: Db) => Promise<void>;
    },
  ): Promise<boolean> {
    // The UPDATE comes first: on PostgreSQL it locks the note, so a concurrent transcription waits here.
    const updated = await db
      .updateTable('notes')
      .set({
        transcript: result.transcript,
        duration_seconds: result.durationSeconds,
        updated_at: result.now,
      })
      .where('id', '=', noteId)
      .where(inSpace(space))
      .where('status', '=', 'processing')
      .where((eb) =>
        eb.not(eb.exists(eb.selectFrom('segments').select('note_id').where('note_id', '=', noteId))),
      )
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return false;
    await result.insertSegments(db);
    return true;
  },

  /** Replaces the note's action items, so a re-run does not duplicate them. */
  async replaceActionItems(db: Db, noteId: string, items: readonly ActionItemsTable[]) {
    await db.deleteFrom('action_items').where('note_id', '=', noteId).execute();
    await insertInBatches(items, (batch) => db.insertInto('action_items').values(batch).execute());
  },

  /** Replaces the note's highlights. */
  async replaceHighlights(db: Db, noteId: string, highlights: readonly HighlightsTable[]) {
    await db.deleteFrom('highlights').where('note_id', '=', noteId).execute();
    await insertInBatches(highlights, (batch) => db.insertInto('highlights').values(batch).execute());
  },
};
