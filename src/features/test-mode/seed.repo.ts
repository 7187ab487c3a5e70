import type {
  ActionItemsTable,
  Db,
  HighlightsTable,
  Mode,
  NotesTable,
  NoteTagsTable,
  SegmentsTable,
  SpeakersTable,
} from '../../db/schema.ts';

/** Every row of a seeded data space, ready to insert. */
export interface SeedRows {
  notes: Omit<NotesTable, 'seq'>[];
  segments: SegmentsTable[];
  speakers: SpeakersTable[];
  noteTags: NoteTagsTable[];
  highlights: HighlightsTable[];
  actionItems: ActionItemsTable[];
}

/** Rows per INSERT: well under the bound-parameter limits of both dialects. */
const BATCH = 400;

function* chunks<T>(rows: T[]): Generator<T[]> {
  for (let i = 0; i < rows.length; i += BATCH) yield rows.slice(i, i + BATCH);
}

export const seedRepo = {
  isSeeded: async (db: Db, accountId: string, mode: Mode): Promise<boolean> =>
    (await db
      .selectFrom('data_spaces')
      .select('account_id')
      .where('account_id', '=', accountId)
      .where('mode', '=', mode)
      .executeTakeFirst()) !== undefined,

  /**
   * Inserts the once-only marker of a data space; false when it already exists. Inside a transaction on
   * PostgreSQL a concurrent claimer blocks on the primary key until the first commits, then sees the conflict.
   */
  claim: async (db: Db, accountId: string, mode: Mode, at: string): Promise<boolean> =>
    (await db
      .insertInto('data_spaces')
      .values({ account_id: accountId, mode, seeded_at: at })
      .onConflict((oc) => oc.columns(['account_id', 'mode']).doNothing())
      .returning('account_id')
      .executeTakeFirst()) !== undefined,

  /** Inserts a whole data set; parents before children (foreign keys). Call inside a transaction. */
  async insertRows(db: Db, rows: SeedRows) {
    for (const chunk of chunks(rows.notes)) await db.insertInto('notes').values(chunk).execute();
    for (const chunk of chunks(rows.segments)) await db.insertInto('segments').values(chunk).execute();
    for (const chunk of chunks(rows.speakers)) await db.insertInto('speakers').values(chunk).execute();
    for (const chunk of chunks(rows.noteTags)) await db.insertInto('note_tags').values(chunk).execute();
    for (const chunk of chunks(rows.highlights)) await db.insertInto('highlights').values(chunk).execute();
    for (const chunk of chunks(rows.actionItems)) await db.insertInto('action_items').values(chunk).execute();
  },
};
