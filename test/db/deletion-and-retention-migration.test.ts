import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/connect.ts';
import { migrate } from '../../src/db/migrate.ts';
import type { Dialect } from '../../src/db/schema.ts';
import { createScratchDatabase } from '../../src/db/scratch-database.ts';
import { DIALECTS } from '../helpers/dialects.ts';

async function databaseAt(dialect: Dialect, version: number) {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-migrate-'));
    handle = openDatabase({ dialect: 'sqlite', file: path.join(dir, 'db.sqlite') });
    drop = async () => fs.rmSync(dir, { recursive: true, force: true });
  } else {
    const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 'minutes_test');
    handle = openDatabase({ dialect: 'postgres', url: scratch.url }, { poolSize: 2 });
    drop = scratch.drop;
  }
  await migrate(handle.db, dialect, { upTo: version });
  return {
    handle,
    destroy: async () => {
      await handle.close();
      await drop();
    },
  };
}

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
