import type { Migration } from '../migrate.ts';

/**
 * The search index: one row per chunk of a note (title, summary pieces, highlights, action items,
 * transcript passages) with its embedding, a keyword index over the chunks, the notes indexed and with which
 * embedder, and index-wide settings.
 *
 * `search_notes.embedding` is the note's vector (the normalised mean of its chunk vectors): the vector index
 * finds candidate notes by it, then the chunks of the candidates are compared one by one. Vector tables are
 * not created here: their width depends on the configured embedder and they need an extension (sqlite-vec,
 * pgvector) that may be missing; the search feature creates them at start (src/features/search/vectors/detect-vector-store.ts). Chunks cascade with their note, and on SQLite triggers keep the
 * FTS5 index in step, so a deleted note leaves no keyword entry behind whoever deletes it.
 */
export const search: Migration = {
  version: 3,
  name: 'search',
  statements: ({ key, ts, pg }) => [
    `CREATE TABLE search_chunks (
      id ${pg ? 'BIGSERIAL PRIMARY KEY' : 'INTEGER PRIMARY KEY'},
      note_id ${key} NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
      account_id ${key} NOT NULL,
      mode TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('title','summary','highlight','action_item','transcript')),
      position INTEGER NOT NULL,
      start_ms BIGINT,
      line_starts TEXT,
      text TEXT NOT NULL,
      text_hash TEXT NOT NULL,
      embedding ${pg ? 'BYTEA' : 'BLOB'},
      embedder TEXT
      ${pg ? ", tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED" : ''}
    )`,
    'CREATE INDEX search_chunks_note ON search_chunks (note_id, position)',
    'CREATE INDEX search_chunks_space ON search_chunks (account_id, mode)',
    `CREATE TABLE search_notes (
      note_id ${key} PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
      account_id ${key} NOT NULL,
      mode TEXT NOT NULL,
      embedder TEXT,
      embedding ${pg ? 'BYTEA' : 'BLOB'},
      chunk_count INTEGER NOT NULL,
      indexed_at ${ts} NOT NULL
    )`,
    'CREATE INDEX search_notes_space ON search_notes (account_id, mode)',
    `CREATE TABLE search_meta (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      updated_at ${ts} NOT NULL
    )`,
    ...(pg
      ? ['CREATE INDEX search_chunks_tsv ON search_chunks USING GIN (tsv)']
      : [
          `CREATE VIRTUAL TABLE search_chunks_fts USING fts5(
            text, content = 'search_chunks', content_rowid = 'id',
            tokenize = 'porter unicode61 remove_diacritics 2'
          )`,
          `CREATE TRIGGER search_chunks_fts_insert AFTER INSERT ON search_chunks BEGIN
            INSERT INTO search_chunks_fts (rowid, text) VALUES (new.id, new.text);
          END`,
          `CREATE TRIGGER search_chunks_fts_update AFTER UPDATE OF text ON search_chunks BEGIN
            INSERT INTO search_chunks_fts (search_chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
            INSERT INTO search_chunks_fts (rowid, text) VALUES (new.id, new.text);
          END`,
          `CREATE TRIGGER search_chunks_fts_delete AFTER DELETE ON search_chunks BEGIN
            INSERT INTO search_chunks_fts (search_chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
          END`,
          // In how many notes a (stemmed) term occurs, index-wide: estimates the rarity of frequent terms.
          `CREATE VIRTUAL TABLE notes_fts_vocab USING fts5vocab(notes_fts, 'row')`,
        ]),
  ],
};
