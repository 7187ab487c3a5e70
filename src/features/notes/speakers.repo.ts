import type { Db } from '../../db/schema.ts';

/** Writes of speaker renames and merges; every statement is scoped to one note (already checked to be the caller's). */
export const speakersRepo = {
  /** Locks the note's row (PostgreSQL) and bumps updated_at, so concurrent edits of one note run one after another. */
  touchNote: (db: Db, noteId: string, now: string) =>
    db.updateTable('notes').set({ updated_at: now }).where('id', '=', noteId).execute(),

  rename: (db: Db, noteId: string, label: string, name: string) =>
    db
      .updateTable('speakers')
      .set({ name })
      .where('note_id', '=', noteId)
      .where('label', '=', label)
      .execute(),

  /** Every turn of `from` becomes a turn of `into`; the speaker `from` goes. */
  async merge(db: Db, noteId: string, from: string, into: string) {
    await db
      .updateTable('segments')
      .set({ speaker: into })
      .where('note_id', '=', noteId)
      .where('speaker', '=', from)
      .execute();
    await db.deleteFrom('speakers').where('note_id', '=', noteId).where('label', '=', from).execute();
  },

  setTranscript: (db: Db, noteId: string, transcript: string) =>
    db.updateTable('notes').set({ transcript }).where('id', '=', noteId).execute(),

  /**
   * Replaces assignees by the map (old name → new name) in one statement, so that swapping two names works;
   * returns the number of items changed.
   */
  async reassign(db: Db, noteId: string, names: ReadonlyMap<string, string>, now: string) {
    const entries = [...names];
    if (!entries.length) return 0;
    const result = await db
      .updateTable('action_items')
      .set((eb) => {
        const [first, ...rest] = entries;
        let built = eb.case(eb.ref('assignee')).when(eb.val(first![0])).then(eb.val(first![1]));
        for (const [from, to] of rest) built = built.when(eb.val(from)).then(eb.val(to));
        return { assignee: built.else(eb.ref('assignee')).end(), updated_at: now };
      })
      .where('note_id', '=', noteId)
      .where(
        'assignee',
        'in',
        entries.map(([from]) => from),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  },
};
