import { inSpace } from '../../db/in-space.ts';
import { pagedList } from '../../db/paged-list.ts';
import type { Db, RecordingsTable } from '../../db/schema.ts';
import type { Space } from '../../lib/space.ts';

const COLUMNS = [
  'id',
  'note_id',
  'content_type',
  'size_bytes',
  'duration_seconds',
  'storage_key',
  'created_at',
  'language',
] as const;

export type RecordingRow = Pick<RecordingsTable, (typeof COLUMNS)[number]>;

function recordingsInSpace(db: Db, space: Space) {
  return db.selectFrom('recordings').where(inSpace(space)).where('note_id', 'is not', null);
}

export const recordingsRepo = {
  insert: (db: Db, row: RecordingsTable) => db.insertInto('recordings').values(row).execute(),

  /** The storage keys of every recording of the space, whatever its note's state. */
  async storageKeys(db: Db, space: Space): Promise<Set<string>> {
    const rows = await db
      .selectFrom('recordings')
      .select('storage_key')
      .where(inSpace(space))
      .where('storage_key', 'is not', null)
      .execute();
    return new Set(rows.map((r) => r.storage_key as string));
  },

  find: (db: Db, space: Space, id: string): Promise<RecordingRow | undefined> =>
    recordingsInSpace(db, space).select(COLUMNS).where('id', '=', id).executeTakeFirst(),

  async list(
    db: Db,
    space: Space,
    filters: { from?: string; to?: string },
    page: { limit: number; offset: number },
  ): Promise<{ rows: RecordingRow[]; total: number }> {
    let base = recordingsInSpace(db, space);
    if (filters.from) base = base.where('created_at', '>=', filters.from);
    if (filters.to) base = base.where('created_at', '<', filters.to);
    return pagedList(
      base,
      (q) => q.select(COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc'),
      page,
    );
  },

  /** The recording that holds exactly these bytes in this space, if any (imports skip what they have seen). */
  findByContent: (db: Db, space: Space, sha256: string) =>
    recordingsInSpace(db, space)
      .select(['id', 'note_id'])
      .where('content_sha256', '=', sha256)
      .executeTakeFirst(),
};
