import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../helpers/before-all.ts';
import { DIALECTS } from '../helpers/dialects.ts';

// PostgreSQL only: full-text GIN indexes must not keep a pending list that every search scans
// (src/db/migrations/0005-gin-fastupdate-off.ts).
describe.skipIf(!DIALECTS.includes('postgres'))('PostgreSQL full-text indexes', () => {
  const database = useTestDatabase('postgres');

  it('write new entries straight into the index (fastupdate off)', async () => {
    const { rows } = await sql<{ relname: string; reloptions: string[] | null }>`
      SELECT relname, reloptions FROM pg_class WHERE relname IN ('notes_search', 'search_chunks_tsv')
      ORDER BY relname`.execute(database.db);
    expect(rows).toEqual([
      { relname: 'notes_search', reloptions: ['fastupdate=off'] },
      { relname: 'search_chunks_tsv', reloptions: ['fastupdate=off'] },
    ]);
  });
});
