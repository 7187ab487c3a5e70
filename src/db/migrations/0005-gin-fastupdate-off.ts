import type { Migration } from '../migrate.ts';

/**
 * PostgreSQL's full-text GIN indexes write new entries to a pending list that every search then scans in full
 * until (auto)vacuum merges it. After a burst of new notes that list held ~400 pages per index and a lookup of
 * one rare word took 66 ms instead of 0.2 ms, and the planner, seeing the cost, fell back to reading every
 * note's tsvector (457 ms). Notes are written far less often than they are searched: entries go straight
 * into the index instead, and what is pending now is merged.
 */
export const ginFastupdateOff: Migration = {
  version: 5,
  name: 'gin-fastupdate-off',
  statements: ({ pg }) =>
    pg
      ? [
          'ALTER INDEX notes_search SET (fastupdate = off)',
          'ALTER INDEX search_chunks_tsv SET (fastupdate = off)',
          "SELECT gin_clean_pending_list('notes_search'::regclass)",
          "SELECT gin_clean_pending_list('search_chunks_tsv'::regclass)",
        ]
      : [],
};
