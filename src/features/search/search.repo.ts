import { sql } from 'kysely';
import { inSpace } from '../../db/in-space.ts';
import type { Db, Dialect } from '../../db/schema.ts';
import { indexWritesRepo } from './repo/index-writes.repo.ts';
import { keywordRepo } from './repo/keyword.repo.ts';
import { metaRepo } from './repo/meta.repo.ts';
import { resultsRepo } from './repo/results.repo.ts';
import type { Space } from './repo/search-rows.ts';
import { SAFE_TERM } from './repo/sql-helpers.ts';
import { vectorsRepo } from './repo/vectors.repo.ts';

export type { ChunkRow, NewChunkRow, SearchFilters, Space } from './repo/search-rows.ts';

/** A frequent term's notes in a space, from its notes in the whole index scaled to the space (at least `cap`). */
function estimate(global: number, spaceSize: number, total: number, cap: number): number {
  return Math.min(spaceSize, Math.max(cap, Math.round((global * spaceSize) / Math.max(1, total))));
}

/**
 * SQLite: in how many notes of every space each term's stem occurs (fts5vocab), and how many notes there are in all
 * and in this space (note_counts, kept by triggers): one statement, so the figures agree with each other.
 */
async function indexCounts(
  db: Db,
  space: Space,
  terms: readonly { term: string; stem: string }[],
): Promise<{ global: Map<string, number>; total: number; here: number }> {
  const stems = [...new Set(terms.filter((t) => SAFE_TERM.test(t.term)).map((t) => t.stem))];
  const row = (
    await sql<Record<string, number | null>>`
      SELECT (SELECT sum(n) FROM note_counts) AS total,
        (SELECT n FROM note_counts WHERE account_id = ${space.accountId} AND mode = ${space.mode}) AS here
        ${sql.join(
          stems.map(
            (stem, i) => sql`, (SELECT doc FROM notes_fts_vocab WHERE term = ${stem}) AS ${sql.ref(`s${i}`)}`,
          ),
          sql``,
        )}`.execute(db)
  ).rows[0];
  return {
    global: new Map(stems.map((stem, i) => [stem, Number(row?.[`s${i}`] ?? 0)])),
    total: Number(row?.total ?? 0),
    here: Number(row?.here ?? 0),
  };
}

/** Term statistics of a space: how many notes it has and how many of them hold each query term. */
export const termStatsRepo = {
  /**
   * In how many notes of the space each term occurs (stemmed, over title, summary and transcript). Counted
   * exactly up to `cap`; beyond, estimated from the index-wide count (SQLite's fts5vocab) scaled to the space,
   * so a frequent word costs no scan of all its matches. `common`: PostgreSQL's most common lexemes (empty on
   * SQLite), whose share of notes needs no count.
   */
  async documentFrequencies(
    db: Db,
    dialect: Dialect,
    space: Space,
    terms: readonly { term: string; stem: string }[],
    cap: number,
    spaceSize: number,
    common: ReadonlyMap<string, number>,
  ): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const index = dialect === 'sqlite' ? await indexCounts(db, space, terms) : undefined;
    for (const { term, stem } of terms) {
      if (!SAFE_TERM.test(term)) {
        out.set(term, 0);
        continue;
      }
      // PostgreSQL's planner statistics already know the frequent words: no count needed for them.
      const known = common.get(term) ?? common.get(stem);
      if (known !== undefined && known * spaceSize > cap) {
        out.set(term, Math.min(spaceSize, Math.max(cap, Math.round(known * spaceSize))));
        continue;
      }
      const global = index?.global.get(stem) ?? 0;
      const total = index?.total ?? 0;
      // At least `global − notes outside the space` of the space's notes hold the term: when that reaches the
      // cap, counting would stop at the cap and estimate, so estimate without scanning its matches (an instance
      // with one account: every frequent word).
      if (index && global - (total - index.here) >= cap) {
        out.set(term, estimate(global, spaceSize, total, cap));
        continue;
      }
      const rows =
        dialect === 'postgres'
          ? await sql<{ n: number }>`
            SELECT count(*) AS n FROM (
              SELECT 1 FROM notes
              WHERE account_id = ${space.accountId} AND mode = ${space.mode}
                AND search_vector @@ to_tsquery('english', ${term})
              LIMIT ${cap}) s`.execute(db)
          : await sql<{ n: number }>`
            SELECT count(*) AS n FROM (
              SELECT 1 FROM notes_fts f JOIN notes n ON n.seq = f.rowid
              WHERE notes_fts MATCH ${`"${term}"`} AND n.account_id = ${space.accountId} AND n.mode = ${space.mode}
              LIMIT ${cap}) s`.execute(db);
      let df = Number(rows.rows[0]?.n ?? 0);
      if (df >= cap && dialect === 'postgres') {
        // No cheap index-wide count on PostgreSQL: a term in more notes than the cap counts as common.
        df = Math.max(cap, Math.round(spaceSize / 2));
      } else if (df >= cap) {
        df = estimate(global, spaceSize, total, cap);
      }
      out.set(term, Math.min(df, spaceSize));
    }
    return out;
  },

  /**
   * The most common lexemes of `notes.search_vector` and the share of notes holding each, from pg_stats (kept
   * by ANALYZE / autovacuum; PostgreSQL only). Empty before the first ANALYZE, or when the statistics cannot be
   * read: every term is then counted.
   */
  async commonLexemes(db: Db): Promise<Map<string, number>> {
    const row = await sql<{ elems: string[] | null; freqs: number[] | null }>`
      SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs
      FROM pg_stats WHERE tablename = 'notes' AND attname = 'search_vector'
        AND schemaname = current_schema()`
      .execute(db)
      .catch(() => ({ rows: [] as { elems: string[] | null; freqs: number[] | null }[] }));
    const out = new Map<string, number>();
    const { elems, freqs } = row.rows[0] ?? { elems: null, freqs: null };
    for (const [i, lexeme] of (elems ?? []).entries()) out.set(lexeme, Number(freqs?.[i] ?? 0));
    return out;
  },

  /** Notes in the space (all statuses: the keyword statistics count them all). */
  async countNotes(db: Db, space: Space): Promise<number> {
    const row = await db
      .selectFrom('notes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(inSpace(space))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
};

/**
 * Reads and writes of the search index; the only place that touches its tables. By concern: index writes,
 * stored vectors, index metadata, keyword lookups, term statistics, what a result reads (repo/*.repo.ts).
 */
export const searchRepo = {
  ...indexWritesRepo,
  ...vectorsRepo,
  ...metaRepo,
  ...keywordRepo,
  ...termStatsRepo,
  ...resultsRepo,
};
