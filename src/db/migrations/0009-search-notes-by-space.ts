import type { Migration } from '../migrate.ts';

/**
 * The exact vector search (PostgreSQL without pgvector, SQLite without sqlite-vec) reads a space's note vectors in
 * pages in note-id order: with (account_id, mode, note_id) indexed each page is one index range, not a sort of the
 * whole space per page (20,000 vectors: 3 s per search before). Replaces the (account_id, mode) index.
 */
export const searchNotesBySpace: Migration = {
  version: 9,
  name: 'search-notes-by-space',
  statements: () => [
    'DROP INDEX search_notes_space',
    'CREATE INDEX search_notes_space ON search_notes (account_id, mode, note_id)',
  ],
};
