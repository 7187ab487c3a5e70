import type { Db, Mode } from '../../db/schema.ts';
import { enqueueJob } from '../../jobs/queue.ts';

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
