import { sql } from 'kysely';
import type { Db } from '../../../db/schema.ts';
import { searchDb } from '../search.tables.ts';
import type { ChunkRow, SearchFilters, Space } from './search-rows.ts';
import { noteFilters } from './sql-helpers.ts';

/** What a search reads of its candidates: chunks and the notes a result shows. */
export const resultsRepo = {
  /** Chunks by id, restricted to the space (checked on the rows, so the lookup uses the primary key). */
  async chunksByIds(db: Db, space: Space, ids: readonly number[]): Promise<ChunkRow[]> {
    const out: ChunkRow[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await searchDb(db)
        .selectFrom('search_chunks')
        .select(['id', 'note_id', 'account_id', 'mode', 'kind', 'start_ms', 'line_starts', 'text'])
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
      for (const { account_id, mode, ...r } of rows) {
        if (account_id !== space.accountId || mode !== space.mode) continue;
        out.push({ ...r, id: Number(r.id), start_ms: r.start_ms === null ? null : Number(r.start_ms) });
      }
    }
    return out;
  },

  /** The notes among `ids` that are in the space and pass the filters, with what a result shows. */
  async notesForResults(db: Db, space: Space, ids: readonly string[], filters: SearchFilters) {
    if (!ids.length) return [];
    const out: { id: string; title: string; created_at: string }[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const batch = ids.slice(i, i + 500);
      // By id (primary key); the space is checked on the rows, so SQLite does not scan the space's index.
      const rows = await sql<{
        id: string;
        title: string;
        created_at: string;
        account_id: string;
        mode: string;
      }>`
        SELECT n.id, n.title, n.created_at, n.account_id, n.mode FROM notes n
        WHERE n.id IN (${sql.join(batch)}) AND ${noteFilters(filters)}`.execute(db);
      for (const r of rows.rows) {
        if (r.account_id === space.accountId && r.mode === space.mode) {
          out.push({ id: r.id, title: r.title, created_at: r.created_at });
        }
      }
    }
    return out;
  },
};
