import { sql } from 'kysely';
import type { Db, Dialect } from '../../../db/schema.ts';
import type { SearchFilters, Space } from './search-rows.ts';
import { hasFilters, noteFilters, PG_RANKED, SAFE_TERM } from './sql-helpers.ts';

/** Full-text lookups: keyword candidates and which notes hold a term. */
export const keywordRepo = {
  /**
   * The best keyword-matching chunks of the space: any of `terms` (OR; all of them with `all`), best first. SQLite: FTS5 bm25 over
   * the porter-stemmed chunk index (higher is better after negation); PostgreSQL: ts_rank_cd over tsvector.
   */
  async keywordChunks(
    db: Db,
    dialect: Dialect,
    space: Space,
    terms: readonly string[],
    filters: SearchFilters,
    limit: number,
    options: { all?: boolean } = {},
  ): Promise<{ id: number; note_id: string; score: number }[]> {
    // Terms are letters and digits only (text/tokens.ts), never index query syntax; checked again here.
    terms = terms.filter((t) => SAFE_TERM.test(t));
    if (!terms.length) return [];
    const join = hasFilters(filters)
      ? sql`JOIN notes n ON n.id = c.note_id AND ${noteFilters(filters)}`
      : sql``;
    if (dialect === 'postgres') {
      const query = terms.join(options.all ? ' & ' : ' | ');
      // Ranking reads each match's tsvector from the table: at most PG_RANKED matches are ranked (the
      // terms are the query's rarest, see retrievalTerms, so this cap binds only for very common words).
      const rows = await sql<{ id: number; note_id: string; score: number }>`
        SELECT m.id, m.note_id, ts_rank_cd(m.tsv, q, 1) AS score
        FROM (
          SELECT c.id, c.note_id, c.tsv FROM search_chunks c ${join}
          WHERE c.tsv @@ to_tsquery('english', ${query})
            AND c.account_id = ${space.accountId} AND c.mode = ${space.mode}
          LIMIT ${PG_RANKED}
        ) m, to_tsquery('english', ${query}) q
        ORDER BY score DESC, m.id
        LIMIT ${limit}`.execute(db);
      return rows.rows.map((r) => ({ id: Number(r.id), note_id: r.note_id, score: Number(r.score) }));
    }
    const match = terms.map((t) => `"${t}"`).join(options.all ? ' AND ' : ' OR ');
    const rows = await sql<{ id: number; note_id: string; score: number }>`
      SELECT c.id, c.note_id, -bm25(search_chunks_fts) AS score
      FROM search_chunks_fts f
      JOIN search_chunks c ON c.id = f.rowid ${join}
      WHERE search_chunks_fts MATCH ${match} AND c.account_id = ${space.accountId} AND c.mode = ${space.mode}
      ORDER BY bm25(search_chunks_fts)
      LIMIT ${limit}`.execute(db);
    return rows.rows.map((r) => ({ id: Number(r.id), note_id: r.note_id, score: Number(r.score) }));
  },

  /** Which of `noteIds` contain `term` (stemmed) in title, summary or transcript. */
  async notesWithTerm(
    db: Db,
    dialect: Dialect,
    space: Space,
    term: string,
    noteIds: readonly string[],
  ): Promise<string[]> {
    const out: string[] = [];
    if (!SAFE_TERM.test(term)) return out;
    for (let i = 0; i < noteIds.length; i += 500) {
      const batch = noteIds.slice(i, i + 500);
      const rows =
        dialect === 'postgres'
          ? await sql<{ id: string }>`
            SELECT id FROM notes
            WHERE account_id = ${space.accountId} AND mode = ${space.mode} AND id IN (${sql.join(batch)})
              AND search_vector @@ to_tsquery('english', ${term})`.execute(db)
          : await sql<{ id: string }>`
            SELECT n.id FROM notes_fts f JOIN notes n ON n.seq = f.rowid
            WHERE notes_fts MATCH ${`"${term}"`} AND n.account_id = ${space.accountId}
              AND n.mode = ${space.mode} AND n.id IN (${sql.join(batch)})`.execute(db);
      out.push(...rows.rows.map((r) => r.id));
    }
    return out;
  },
};
