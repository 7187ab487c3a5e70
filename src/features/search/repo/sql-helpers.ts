import { type RawBuilder, sql } from 'kysely';
import type { SearchFilters } from './search-rows.ts';

/** What a term given to FTS5 MATCH or to_tsquery may look like. */
export const SAFE_TERM = /^[\p{L}\p{N}]+$/u;

/** Keyword matches ranked per query on PostgreSQL (see keywordChunks). */
export const PG_RANKED = 5_000;

/** Rows per INSERT: well under both dialects' limits on bound parameters. */
export const BATCH = 200;

/** Conditions on the notes table `n` for the filters; `TRUE` when there are none. */
export function noteFilters(f: SearchFilters): RawBuilder<unknown> {
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

export const hasFilters = (f: SearchFilters) => Boolean(f.from || f.to || f.tag);
