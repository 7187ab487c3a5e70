import { z } from 'zod';
import type { Db } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { defineJob } from '../../jobs/define-job.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { Space } from '../../lib/space.ts';
import { indexNote } from '../search/index-note.ts';

export const REINDEX_NOTE_JOB = 'reindex_note';

const ReindexNotePayload = z.object({ note_id: z.string().min(1) });

/**
 * Queues a rebuild of the note's search index, in the transaction of the edit that needs it (a crash loses
 * nothing); a rebuild still queued for the note covers this edit too, so a burst of edits costs one rebuild.
 */
export async function enqueueReindex(db: Db, space: Space, noteId: string, deps: Pick<Deps, 'config'>) {
  const payload = JSON.stringify({ note_id: noteId });
  const pending = await db
    .selectFrom('jobs')
    .select('id')
    .where('type', '=', REINDEX_NOTE_JOB)
    .where('status', '=', 'queued')
    .where('payload', '=', payload)
    .executeTakeFirst();
  if (pending) return pending.id;
  return enqueueJob(db, {
    ...space,
    type: REINDEX_NOTE_JOB,
    payload: { note_id: noteId },
    maxAttempts: deps.config.worker.maxAttempts,
  });
}

/**
 * Rebuilds one note's search index from what it holds now, in the workers, within the processing budget
 * (ANALYSIS_TIMEOUT_MS for its chunking): an edit of a large note answers at once. Idempotent; a deleted or
 * unprocessed note is taken out of the index.
 */
export const reindexNoteJob = defineJob({
  payload: ReindexNotePayload,
  run: async ({ note_id }, { deps, job }) => {
    const signal = AbortSignal.timeout(deps.config.processing.timeoutMs);
    await indexNote(deps, { accountId: job.accountId, mode: job.mode }, note_id, { signal });
  },
});
