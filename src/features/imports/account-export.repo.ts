import { inSpace } from '../../db/in-space.ts';
import type { Db } from '../../db/schema.ts';
import type { Space } from '../../lib/space.ts';
import { NOTE_CONTENT_COLUMNS } from '../notes/note-columns.ts';

/** Reads of a whole account for its lossless export: every column, a page of notes at a time. */
export const accountExportRepo = {
  /** Ids of the space's notes after `after`, in id order (a stable walk while notes come and go). */
  noteIdsAfter: (db: Db, space: Space, after: string, limit: number) =>
    db
      .selectFrom('notes')
      .select('id')
      .where(inSpace(space))
      .where('id', '>', after)
      .orderBy('id')
      .limit(limit)
      .execute(),

  async note(db: Db, space: Space, id: string) {
    const note = await db
      .selectFrom('notes')
      .select(['id', ...NOTE_CONTENT_COLUMNS, 'source', 'source_id', 'language', 'analysis_notes'])
      .where('id', '=', id)
      .where(inSpace(space))
      .executeTakeFirst();
    if (!note) return undefined;
    const [segments, speakers, highlights, actionItems, recording] = await Promise.all([
      db
        .selectFrom('segments')
        .select(['speaker', 'start_ms', 'end_ms', 'text'])
        .where('note_id', '=', id)
        .orderBy('position')
        .execute(),
      db
        .selectFrom('speakers')
        .select(['label', 'name'])
        .where('note_id', '=', id)
        .orderBy('position')
        .execute(),
      db
        .selectFrom('highlights')
        .select(['id', 'timestamp_ms', 'text', 'created_at'])
        .where('note_id', '=', id)
        .orderBy('timestamp_ms')
        .orderBy('id')
        .execute(),
      db
        .selectFrom('action_items')
        .select(['id', 'text', 'assignee', 'due', 'status', 'created_at', 'updated_at', 'completed_at'])
        .where('note_id', '=', id)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
      note.recording_id
        ? db
            .selectFrom('recordings')
            .select([
              'id',
              'content_type',
              'size_bytes',
              'duration_seconds',
              'storage_key',
              'created_at',
              'content_sha256',
              'language',
            ])
            .where('id', '=', note.recording_id)
            .where(inSpace(space))
            .executeTakeFirst()
        : undefined,
    ]);
    return { note, segments, speakers, highlights, actionItems, recording };
  },
};
