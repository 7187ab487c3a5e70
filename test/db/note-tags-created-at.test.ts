import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { databaseAt } from './database-at.ts';

for (const dialect of DIALECTS) {
  describe(`migration 6: note_tags.created_at (${dialect})`, () => {
    it('copies each note’s created_at into its existing tag rows, and makes the column required', async () => {
      const { handle, destroy } = await databaseAt(dialect, 5);
      const db = handle.db;
      try {
        const at = '2026-03-04T05:06:07.089Z';
        await sql`INSERT INTO accounts (id, email, created_at) VALUES ('acct_1', 'a@example.com', ${at})`.execute(
          db,
        );
        for (const [id, created] of [
          ['note_1', '2026-01-01T00:00:00.000Z'],
          ['note_2', '2026-02-02T00:00:00.000Z'],
        ]) {
          await sql`INSERT INTO notes (id, account_id, mode, status, title, title_locked, duration_seconds, summary, transcript, tags, created_at, updated_at)
            VALUES (${id}, 'acct_1', 'live', 'ready', 'T', 0, 60, '', '', '["x","y"]', ${created}, ${created})`.execute(
            db,
          );
          for (const tag of ['x', 'y'])
            await sql`INSERT INTO note_tags (note_id, account_id, mode, tag) VALUES (${id}, 'acct_1', 'live', ${tag})`.execute(
              db,
            );
        }

        expect(await migrate(db, dialect)).toContain(6);
        const rows = await db.selectFrom('note_tags').selectAll().orderBy('note_id').orderBy('tag').execute();
        expect(rows.map((r) => [r.note_id, r.tag, r.created_at])).toEqual([
          ['note_1', 'x', '2026-01-01T00:00:00.000Z'],
          ['note_1', 'y', '2026-01-01T00:00:00.000Z'],
          ['note_2', 'x', '2026-02-02T00:00:00.000Z'],
          ['note_2', 'y', '2026-02-02T00:00:00.000Z'],
        ]);
        // No default: a row without the copy is refused rather than silently left out of date ranges.
        await expect(
          sql`INSERT INTO note_tags (note_id, account_id, mode, tag) VALUES ('note_1', 'acct_1', 'live', 'z')`.execute(
            db,
          ),
        ).rejects.toThrow(/null|NOT NULL/i);
        // Deleting a note still removes its tags (the rebuilt SQLite table keeps the foreign key).
        await sql`DELETE FROM notes WHERE id = 'note_1'`.execute(db);
        expect(await db.selectFrom('note_tags').select('note_id').distinct().execute()).toEqual([
          { note_id: 'note_2' },
        ]);
      } finally {
        await destroy();
      }
    });
  });
}
