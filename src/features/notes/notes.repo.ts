import { type Expression, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { findInSpace, inSpace } from '../../db/in-space.ts';
import type { Database, Db, Dialect, NotesTable } from '../../db/schema.ts';
import type { Space } from '../../lib/space.ts';

export interface NoteFilters {
  q?: string;
  from?: string;
  to?: string;
  tag?: string;
}

/** Words of a free-text query, as FTS5 string literals ANDed together; null when it has no words. */
export function ftsQuery(q: string): string | null {
  const words = q.match(/[\p{L}\p{N}]+/gu);
  return words?.length ? words.map((w) => `"${w}"`).join(' ') : null;
}

function keywordMatch(dialect: Dialect, q: string): Expression<SqlBool> {
  if (dialect === 'postgres')
    return sql<SqlBool>`notes.search_vector @@ websearch_to_tsquery('english', ${q})`;
  const match = ftsQuery(q);
  if (!match) return sql<SqlBool>`1 = 0`;
  return sql<SqlBool>`notes.seq IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH ${match})`;
}

/**
 * The notes matching the filters, as rows of `notes` with the list's order columns (`order_at`, `order_id`). A tag
 * filter drives the query from `note_tags`, whose index (account, mode, tag, created_at, note_id) holds the
 * matches in the list's order; otherwise `notes` is read by its (account, mode, created_at) order.
 */
function filtered(db: Db, dialect: Dialect, space: Space, f: NoteFilters) {
  const q = f.q?.trim();
  if (f.tag) {
    let query = db
      .selectFrom('note_tags')
      .innerJoin('notes', 'notes.id', 'note_tags.note_id')
      .where('note_tags.account_id', '=', space.accountId)
      .where('note_tags.mode', '=', space.mode)
      .where('note_tags.tag', '=', f.tag.trim().toLowerCase());
    if (f.from) query = query.where('note_tags.created_at', '>=', f.from);
    if (f.to) query = query.where('note_tags.created_at', '<', f.to);
    if (q) query = query.where(() => keywordMatch(dialect, q));
    return { query, orderAt: 'note_tags.created_at', orderId: 'note_tags.note_id' } as const;
  }
  let query = db
    .selectFrom('notes')
    .where('notes.account_id', '=', space.accountId)
    .where('notes.mode', '=', space.mode);
  if (f.from) query = query.where('notes.created_at', '>=', f.from);
  if (f.to) query = query.where('notes.created_at', '<', f.to);
  if (q) query = query.where(() => keywordMatch(dialect, q));
  return { query, orderAt: 'notes.created_at', orderId: 'notes.id' } as const;
}

/** The number of notes with a tag (and in a date range): one range of the note_tags index, no join. */
function countTagged(db: Db, space: Space, f: NoteFilters & { tag: string }) {
  let query = db
    .selectFrom('note_tags')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(inSpace(space))
    .where('tag', '=', f.tag.trim().toLowerCase());
  if (f.from) query = query.where('created_at', '>=', f.from);
  if (f.to) query = query.where('created_at', '<', f.to);
  return query.executeTakeFirstOrThrow();
}

const isUnfiltered = (f: NoteFilters) => !f.from && !f.to && !f.tag && !f.q?.trim();

/** The number of notes of the space, from the trigger-maintained counter. */
const countAll = (db: Db, space: Space) =>
  db.selectFrom('note_counts').select('n').where(inSpace(space)).executeTakeFirst();

export const notesRepo = {
  /** Titles of the space's notes among these ids. */
  async titles(db: Db, space: Space, ids: readonly string[]): Promise<Map<string, string>> {
    if (!ids.length) return new Map();
    const rows = await db
      .selectFrom('notes')
      .select(['id', 'title'])
      .where(inSpace(space))
      .where('id', 'in', ids)
      .execute();
    return new Map(rows.map((n) => [n.id, n.title]));
  },

  async list(
    db: Db,
    dialect: Dialect,
    space: Space,
    f: NoteFilters,
    page: { limit: number; offset: number },
  ) {
    const base = filtered(db, dialect, space, f);
    // Typed once for both shapes (with and without the note_tags join): the selected columns are the same.
    const query = base.query as unknown as SelectQueryBuilder<Database, 'notes', object>;
    const [rows, total] = await Promise.all([
      query
        .select([
          'notes.id',
          'notes.title',
          'notes.summary',
          'notes.created_at',
          'notes.duration_seconds',
          'notes.recording_id',
          'notes.tags',
        ])
        .select((eb) =>
          eb
            .selectFrom('highlights')
            .select((e) => e.fn.countAll<number>().as('n'))
            .whereRef('highlights.note_id', '=', 'notes.id')
            .as('highlight_count'),
        )
        .orderBy(sql.ref(base.orderAt), 'desc')
        .orderBy(sql.ref(base.orderId), 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      isUnfiltered(f)
        ? countAll(db, space)
        : f.tag && !f.q?.trim()
          ? countTagged(db, space, { ...f, tag: f.tag })
          : query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total?.n ?? 0) };
  },

  find: (db: Db, space: Space, id: string) => findInSpace(db, 'notes', space, id),

  segments: (db: Db, noteId: string) =>
    db
      .selectFrom('segments')
      .select(['speaker', 'start_ms', 'end_ms', 'text'])
      .where('note_id', '=', noteId)
      .orderBy('position')
      .execute(),

  speakers: (db: Db, noteId: string) =>
    db
      .selectFrom('speakers')
      .select(['label', 'name'])
      .where('note_id', '=', noteId)
      .orderBy('position')
      .execute(),

  highlights: (db: Db, noteId: string) =>
    db
      .selectFrom('highlights')
      .select(['id', 'timestamp_ms', 'text'])
      .where('note_id', '=', noteId)
      .orderBy('timestamp_ms')
      .orderBy('id')
      .execute(),

  actionItems: (db: Db, noteId: string) =>
    db
      .selectFrom('action_items')
      .select(['id', 'text', 'assignee', 'due', 'status'])
      .where('note_id', '=', noteId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),

  insert: (db: Db, row: Omit<NotesTable, 'seq'>) => db.insertInto('notes').values(row).execute(),

  /** Inserts the row unless the space holds a note from the same source item already; true when inserted. */
  async insertFromSource(db: Db, row: Omit<NotesTable, 'seq'>): Promise<boolean> {
    const inserted = await db
      .insertInto('notes')
      .values(row)
      .onConflict((oc) => oc.columns(['account_id', 'mode', 'source', 'source_id']).doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  },

  update: (
    db: Db,
    id: string,
    patch: Partial<Pick<NotesTable, 'title' | 'title_locked' | 'tags' | 'updated_at'>>,
  ) => db.updateTable('notes').set(patch).where('id', '=', id).execute(),

  async replaceTags(db: Db, space: Space, noteId: string, tags: string[]) {
    await db.deleteFrom('note_tags').where('note_id', '=', noteId).execute();
    const unique = [...new Set(tags.map((t) => t.toLowerCase()))];
    if (unique.length) {
      await db
        .insertInto('note_tags')
        .values(
          unique.map((tag) => ({
            note_id: noteId,
            account_id: space.accountId,
            mode: space.mode,
            tag,
            created_at: (eb) =>
              eb.selectFrom('notes').select('notes.created_at').where('notes.id', '=', noteId),
          })),
        )
        .execute();
    }
  },

  /** Deletes the recordings of a note and returns their audio storage keys (to remove after the commit). */
  async deleteRecordings(db: Db, noteId: string): Promise<(string | null)[]> {
    const rows = await db
      .deleteFrom('recordings')
      .where('note_id', '=', noteId)
      .returning('storage_key')
      .execute();
    return rows.map((r) => r.storage_key);
  },

  /** Deletes the note; segments, speakers, highlights, action items and tags go with it (ON DELETE CASCADE). */
  delete: (db: Db, id: string) => db.deleteFrom('notes').where('id', '=', id).execute(),
};
