import type { Db } from '../../db/schema.ts';
import type { Space } from '../../lib/space.ts';
import { recordEvent } from '../events/events.ts';
import { toNoteListItem } from '../notes/notes.view.ts';
import { processingRepo } from './processing.repo.ts';

/**
 * The one way a note becomes `failed`: marks the note (only while it is still processing) and writes the
 * `note.failed` event (the note in list form plus `failure_reason`) to the outbox in the same transaction, so
 * subscribers hear of every failure exactly once. Returns whether the note was marked. Runs in `db`'s
 * transaction when it is one (the job's final-failure hook), else in its own.
 */
export async function failNote(
  db: Db,
  space: Space,
  noteId: string,
  reason: string,
  now: string,
): Promise<boolean> {
  const run = async (trx: Db) => {
    const note = await processingRepo.markFailed(trx, space, noteId, reason, now);
    if (!note) return false;
    const highlights = await trx
      .selectFrom('highlights')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('note_id', '=', noteId)
      .executeTakeFirst();
    await recordEvent(trx, space, 'note.failed', {
      ...toNoteListItem({ ...note, highlight_count: highlights?.n ?? 0 }),
      failure_reason: reason,
    });
    return true;
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}
