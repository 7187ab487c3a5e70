import { type RawBuilder, sql } from 'kysely';
import type { Db, Dialect, Mode } from '../../db/schema.ts';
import type { SearchState } from '../../deps.ts';
import type { ChunkKind } from './chunk-note.ts';
import { searchDb } from './search.tables.ts';

export interface Space {
  accountId: string;
  mode: Mode;
}

/** from/to (half-open ISO bounds, as parsed by rangeBound) and an exact tag. */
export interface SearchFilters {
  from?: string;
  to?: string;
  tag?: string;
}

export interface NewChunkRow {
  kind: ChunkKind;
  position: number;
  start_ms: number | null;
  line_starts: string | null;
  text: string;
  text_hash: string;
  embedding: Uint8Array | null;
  embedder: string | null;
}

export interface ChunkRow {
  id: number;
  note_id: string;
  kind: ChunkKind;
  start_ms: number | null;
  line_starts: string | null;
  text: string;
}

/**
 * The most common lexemes of `notes.search_vector` and the share of notes holding each, from pg_stats (kept
 * by ANALYZE / autovacuum), re-read at most once a minute (remembered in the deps' search state). Empty before
 * the first ANALYZE: every term is then counted.
 */
function commonLexemes(db: Db, state: Pick<SearchState, 'lexemeStats'>): Promise<Map<string, number>> {
  const cached = state.lexemeStats;
  if (cached && Date.now() - cached.at < 60_000) return cached.freqs;
  const freqs = (async () => {
    const row = await sql<{ elems: string[] | null; freqs: number[] | null }>`
      SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs
      FROM pg_stats WHERE tablename = 'notes' AND attname = 'search_vector'
        AND schemaname = current_schema()`
      .execute(db)
      .catch(() => ({ rows: [] as { elems: string[] | null; freqs: number[] | null }[] }));
    const out = new Map<string, number>();
    const { elems, freqs: f } = row.rows[0] ?? { elems: null, freqs: null };
    for (const [i, lexeme] of (elems ?? []).entries()) out.set(lexeme, Number(f?.[i] ?? 0));
    return out;
  })();
  state.lexemeStats = { at: Date.now(), freqs };
  return freqs;
}

/** What a term given to FTS5 MATCH or to_tsquery may look like. */
const SAFE_TERM = /^[\p{L}\p{N}]+$/u;

/** Keyword matches ranked per query on PostgreSQL (see keywordChunks). */
const PG_RANKED = 5_000;

/** Rows per INSERT: well under both dialects' limits on bound parameters. */
const BATCH = 200;

/** Conditions on the notes table `n` for the filters; `TRUE` when there are none. */
function noteFilters(f: SearchFilters): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  if (f.from) parts.push(sql`n.created_at >= ${f.from}`);
  if (f.to) parts.push(sql`n.created_at < ${f.to}`);
  if (f.tag) {
    parts.push(
      sql`EXISTS (SELECT 1 FROM note_tags t WHERE t.note_id = n.id AND t.tag = ${f.tag.trim().toLowerCase()})`,
    );
  }
  return parts.length ? sql.join(parts, sql` AND `) : sql`1 = 1`;
}

const hasFilters = (f: SearchFilters) => Boolean(f.from || f.to || f.tag);

/** Reads and writes of the search index; the only place that touches its tables. */
export const searchRepo = {
  /** Chunks a note has now: their text hashes and embeddings, to reuse what did not change. */
  existingEmbeddings: (db: Db, noteId: string) =>
    searchDb(db)
      .selectFrom('search_chunks')
      .select(['text_hash', 'embedding', 'embedder'])
      .where('note_id', '=', noteId)
      .execute(),

  /** Removes the note's chunks and index record; returns the removed chunk ids (for the vector table). */
  async deleteNote(db: Db, noteId: string): Promise<number[]> {
    const sdb = searchDb(db);
    const rows = await sdb.selectFrom('search_chunks').select('id').where('note_id', '=', noteId).execute();
    await sdb.deleteFrom('search_chunks').where('note_id', '=', noteId).execute();
    await sdb.deleteFrom('search_notes').where('note_id', '=', noteId).execute();
    return rows.map((r) => Number(r.id));
  },

  /** Inserts the note's chunks and returns their ids, in the order given. */
  async insertChunks(db: Db, space: Space, noteId: string, rows: readonly NewChunkRow[]): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < rows.length; i += BATCH) {
      const inserted = await searchDb(db)
        .insertInto('search_chunks')
        .values(
          rows.slice(i, i + BATCH).map((r) => ({
            ...r,
            note_id: noteId,
            account_id: space.accountId,
            mode: space.mode,
          })),
        )
        .returning(['id', 'position'])
        .execute();
      // RETURNING order is not guaranteed; positions are unique within a note.
      const byPosition = new Map(inserted.map((r) => [Number(r.position), Number(r.id)]));
      for (const r of rows.slice(i, i + BATCH)) ids.push(byPosition.get(r.position)!);
    }
    return ids;
  },

  markIndexed: (
    db: Db,
    space: Space,
    noteId: string,
    values: { embedder: string | null; embedding: Uint8Array | null; chunkCount: number; at: string },
  ) =>
    searchDb(db)
      .insertInto('search_notes')
      .values({
        note_id: noteId,
        account_id: space.accountId,
        mode: space.mode,
        embedder: values.embedder,
        embedding: values.embedding,
        chunk_count: values.chunkCount,
        indexed_at: values.at,
      })
      .onConflict((oc) =>
        oc.column('note_id').doUpdateSet({
          embedder: values.embedder,
          embedding: values.embedding,
          chunk_count: values.chunkCount,
          indexed_at: values.at,
        }),
      )
      .execute(),

  /** How many note vectors the space has from `embedderId`, and the newest indexed_at: changes when any is written. */
  async noteEmbeddingsStamp(db: Db, space: Space, embedderId: string) {
    const row = await searchDb(db)
      .selectFrom('search_notes')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('indexed_at').as('newest')])
      .where('account_id', '=', space.accountId)
      .where('mode', '=', space.mode)
      .where('embedder', '=', embedderId)
      .where('embedding', 'is not', null)
      .executeTakeFirstOrThrow();
    const count = Number(row.n);
    return { count, value: `${count}/${String(row.newest ?? '')}` };
  },

  /** One page of the space's note vectors made by `embedderId`, in note id order after `afterNoteId` (exact search). */
  async noteEmbeddingsPage(db: Db, space: Space, embedderId: string, afterNoteId: string, limit: number) {
    const rows = await searchDb(db)
      .selectFrom('search_notes')
      .select(['note_id', 'embedding'])
      .where('account_id', '=', space.accountId)
      .where('mode', '=', space.mode)
      .where('embedder', '=', embedderId)
      .where('embedding', 'is not', null)
      .where('note_id', '>', afterNoteId)
      .orderBy('note_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ note_id: r.note_id, embedding: r.embedding! }));
  },

  /** How many notes have a vector made by `embedderId`. */
  async noteVectorCount(db: Db, embedderId: string): Promise<number> {
    const row = await searchDb(db)
      .selectFrom('search_notes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('embedder', '=', embedderId)
      .where('embedding', 'is not', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** Note vectors by `embedderId`, in note id order after `afterNoteId` (a refill of the vector table). */
  async noteVectorsAfter(db: Db, embedderId: string, afterNoteId: string, limit: number) {
    const rows = await searchDb(db)
      .selectFrom('search_notes')
      .select(['note_id', 'account_id', 'mode', 'embedding'])
      .where('embedder', '=', embedderId)
      .where('embedding', 'is not', null)
      .where('note_id', '>', afterNoteId)
      .orderBy('note_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...r, embedding: r.embedding! }));
  },

  /**
   * Chunk vectors of some notes of the space, to compare each chunk with the query. Looked up by note id only
   * (the space is checked on the rows): with the space in the WHERE clause SQLite may scan the whole space.
   */
  async chunkEmbeddings(db: Db, space: Space, noteIds: readonly string[], embedderId: string) {
    const out: { id: number; note_id: string; embedding: Uint8Array }[] = [];
    for (let i = 0; i < noteIds.length; i += 500) {
      const rows = await searchDb(db)
        .selectFrom('search_chunks')
        .select(['id', 'note_id', 'account_id', 'mode', 'embedder', 'embedding'])
        .where('note_id', 'in', noteIds.slice(i, i + 500))
        .execute();
      for (const r of rows) {
        if (r.account_id !== space.accountId || r.mode !== space.mode) continue;
        if (r.embedder !== embedderId || !r.embedding) continue;
        out.push({ id: Number(r.id), note_id: r.note_id, embedding: r.embedding });
      }
    }
    return out;
  },

  /** Processed notes of a space that are not in the index yet (e.g. a seeded test space). */
  unindexedNotes: (db: Db, space: Space, limit: number) =>
    searchDb(db)
      .selectFrom('notes')
      .select('notes.id')
      .where('notes.account_id', '=', space.accountId)
      .where('notes.mode', '=', space.mode)
      .where('notes.status', '=', 'ready')
      .where((eb) =>
        eb.not(
          eb.exists(eb.selectFrom('search_notes').select('note_id').whereRef('note_id', '=', 'notes.id')),
        ),
      )
      .orderBy('notes.created_at')
      .limit(limit)
      .execute(),

  /** Every processed note, oldest first, for a full rebuild. */
  allIndexableNotes: (db: Db) =>
    db
      .selectFrom('notes')
      .select(['id', 'account_id', 'mode'])
      .where('status', '=', 'ready')
      .orderBy('created_at')
      .orderBy('id')
      .execute(),

  /** How many notes the index holds, and how many of them another embedder built. */
  async indexSummary(db: Db, embedderId: string) {
    const row = await searchDb(db)
      .selectFrom('search_notes')
      .select((eb) => [
        eb.fn.countAll<number>().as('total'),
        eb.fn
          .count<number>(
            eb.case().when('embedder', 'is', null).then(1).when('embedder', '!=', embedderId).then(1).end(),
          )
          .as('stale'),
      ])
      .executeTakeFirstOrThrow();
    const ready = await db
      .selectFrom('notes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'ready')
      .executeTakeFirstOrThrow();
    return { indexed: Number(row.total), stale: Number(row.stale), ready: Number(ready.n) };
  },

  async getMeta(db: Db, key: string): Promise<string | undefined> {
    const row = await searchDb(db)
      .selectFrom('search_meta')
      .select('value')
      .where('key', '=', key)
      .executeTakeFirst();
    return row?.value;
  },

  setMeta: (db: Db, key: string, value: string, at: string) =>
    searchDb(db)
      .insertInto('search_meta')
      .values({ key, value, updated_at: at })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: at }))
      .execute(),

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

  /**
   * In how many notes of the space each term occurs (stemmed, over title, summary and transcript). Counted
   * exactly up to `cap`; beyond, estimated from the index-wide count (SQLite's fts5vocab) scaled to the space,
   * so a frequent word costs no scan of all its matches.
   */
  async documentFrequencies(
    db: Db,
    dialect: Dialect,
    space: Space,
    terms: readonly { term: string; stem: string }[],
    cap: number,
    spaceSize: number,
    state: Pick<SearchState, 'lexemeStats'>,
  ): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    let total: number | undefined;
    const common = dialect === 'postgres' ? await commonLexemes(db, state) : new Map<string, number>();
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
        total ??= Number(
          (
            await db
              .selectFrom('notes')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
        const vocab = await sql<{
          doc: number;
        }>`SELECT doc FROM notes_fts_vocab WHERE term = ${stem}`.execute(db);
        const global = Number(vocab.rows[0]?.doc ?? 0);
        df = Math.max(cap, Math.round((global * spaceSize) / Math.max(1, total)));
      }
      out.set(term, Math.min(df, spaceSize));
    }
    return out;
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

  /** Notes in the space (all statuses: the keyword statistics count them all). */
  async countNotes(db: Db, space: Space): Promise<number> {
    const row = await db
      .selectFrom('notes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', space.accountId)
      .where('mode', '=', space.mode)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

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
