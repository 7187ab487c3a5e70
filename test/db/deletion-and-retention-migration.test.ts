import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { databaseAt } from './database-at.ts';

for (const dialect of DIALECTS) {
  describe(`migration 7: deletion and retention (${dialect})`, () => {
    it('fills events.note_id of existing events from their payloads', async () => {
      const { handle, destroy } = await databaseAt(dialect, 6);
      const db = handle.db;
      try {
        const events: [string, string, unknown][] = [
          ['evt_1', 'note.created', { id: 'note_a', title: 'A' }],
          ['evt_2', 'recording.ready', { id: 'rec_1', note_id: 'note_a' }],
          ['evt_3', 'action_item.created', { id: 'ai_1', note_id: 'note_b', text: 'x' }],
          ['evt_4', 'note.processed', { id: 'note_b' }],
        ];
        for (const [id, type, data] of events) {
          const payload = JSON.stringify({ id, type, created_at: '2026-01-01T00:00:00.000Z', data });
          await sql`INSERT INTO events (id, account_id, mode, type, payload, created_at)
            VALUES (${id}, 'acct_1', 'live', ${type}, ${payload}, '2026-01-01T00:00:00.000Z')`.execute(db);
        }
        expect(await migrate(db, dialect)).toContain(7);
        const rows = await sql<{ id: string; note_id: string | null }>`
          SELECT id, note_id FROM events ORDER BY id`.execute(db);
        expect(rows.rows).toEqual([
          { id: 'evt_1', note_id: 'note_a' },
          { id: 'evt_2', note_id: 'note_a' },
          { id: 'evt_3', note_id: 'note_b' },
          { id: 'evt_4', note_id: 'note_b' },
        ]);
      } finally {
        await destroy();
      }
    });
  });
}
