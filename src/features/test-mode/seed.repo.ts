import { insertInBatches } from '../../db/insert-in-batches.ts';
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
    await insertInBatches(rows.notes, (batch) => db.insertInto('notes').values(batch).execute(), BATCH);
    await insertInBatches(rows.segments, (batch) => db.insertInto('segments').values(batch).execute(), BATCH);
    await insertInBatches(rows.speakers, (batch) => db.insertInto('speakers').values(batch).execute(), BATCH);
    await insertInBatches(
      rows.noteTags,
      (batch) => db.insertInto('note_tags').values(batch).execute(),
      BATCH,
    );
    await insertInBatches(
      rows.highlights,
      (batch) => db.insertInto('highlights').values(batch).execute(),
      BATCH,
    );
    await insertInBatches(
      rows.actionItems,
      (batch) => db.insertInto('action_items').values(batch).execute(),
      BATCH,
    );
  },
};
