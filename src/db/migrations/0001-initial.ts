import type { Migration } from '../migrate.ts';

/** Tables of the foundation: accounts, keys, notes and everything a note owns, outbox, jobs. */
export const initial: Migration = {
  version: 1,
  name: 'initial',
  statements: ({ key, ts, pg }) => [
    `CREATE TABLE accounts (
      id ${key} PRIMARY KEY,
      email TEXT NOT NULL UNIQUE,
      name TEXT,
      created_at ${ts} NOT NULL
    )`,
    `CREATE TABLE api_keys (
      id ${key} PRIMARY KEY,
      account_id ${key} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      mode TEXT NOT NULL CHECK (mode IN ('live','test')),
      name TEXT,
      key_hash TEXT NOT NULL UNIQUE,
      key_start TEXT NOT NULL,
      scopes TEXT NOT NULL,
      created_at ${ts} NOT NULL,
      expires_at ${ts},
      revoked_at ${ts},
      last_used_at ${ts}
    )`,
    'CREATE INDEX api_keys_account ON api_keys (account_id, created_at)',
    `CREATE TABLE data_spaces (
      account_id ${key} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      mode TEXT NOT NULL,
      seeded_at ${ts} NOT NULL,
      PRIMARY KEY (account_id, mode)
    )`,
    `CREATE TABLE recordings (
      id ${key} PRIMARY KEY,
      account_id ${key} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      mode TEXT NOT NULL CHECK (mode IN ('live','test')),
      note_id ${key},
      content_type TEXT NOT NULL,
      size_bytes BIGINT NOT NULL,
      duration_seconds INTEGER,
      storage_key TEXT,
      created_at ${ts} NOT NULL
    )`,
    'CREATE INDEX recordings_list ON recordings (account_id, mode, created_at DESC, id DESC)',
    `CREATE TABLE notes (
      seq ${pg ? 'BIGSERIAL UNIQUE' : 'INTEGER PRIMARY KEY'},
      id ${key} ${pg ? 'PRIMARY KEY' : 'NOT NULL UNIQUE'},
      account_id ${key} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      mode TEXT NOT NULL CHECK (mode IN ('live','test')),
      recording_id ${key},
      status TEXT NOT NULL CHECK (status IN ('processing','ready','failed')),
      failure_reason TEXT,
      title TEXT NOT NULL,
      title_locked INTEGER NOT NULL DEFAULT 0,
      duration_seconds INTEGER NOT NULL,
      tags TEXT NOT NULL,
      created_at ${ts} NOT NULL,
      updated_at ${ts} NOT NULL,
      -- Long text last: a listed row's other columns are read without walking its overflow pages.
      summary TEXT NOT NULL,
      transcript TEXT NOT NULL
    )`,
    'CREATE INDEX notes_list ON notes (account_id, mode, created_at DESC, id DESC)',
    `CREATE TABLE note_tags (
      note_id ${key} NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
      account_id ${key} NOT NULL,
      mode TEXT NOT NULL,
      tag TEXT NOT NULL,
      PRIMARY KEY (note_id, tag)
    )`,
    'CREATE INDEX note_tags_lookup ON note_tags (account_id, mode, tag)',
    // The number of notes per data space, kept by triggers so an unfiltered list knows its total without
    // counting (a count over 10,000 index entries costs more than the rest of the request).
    `CREATE TABLE note_counts (
      account_id ${key} NOT NULL,
      mode TEXT NOT NULL,
      n INTEGER NOT NULL,
      PRIMARY KEY (account_id, mode)
    )`,
    ...(pg
      ? [
          `CREATE FUNCTION notes_count_change() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF TG_OP = 'INSERT' THEN
              INSERT INTO note_counts (account_id, mode, n) VALUES (NEW.account_id, NEW.mode, 1)
              ON CONFLICT (account_id, mode) DO UPDATE SET n = note_counts.n + 1;
              RETURN NEW;
            END IF;
            UPDATE note_counts SET n = n - 1 WHERE account_id = OLD.account_id AND mode = OLD.mode;
            RETURN OLD;
          END $$`,
          `CREATE TRIGGER notes_count AFTER INSERT OR DELETE ON notes
            FOR EACH ROW EXECUTE FUNCTION notes_count_change()`,
        ]
      : [
          `CREATE TRIGGER notes_count_insert AFTER INSERT ON notes BEGIN
            INSERT INTO note_counts (account_id, mode, n) VALUES (new.account_id, new.mode, 1)
            ON CONFLICT (account_id, mode) DO UPDATE SET n = n + 1;
          END`,
          `CREATE TRIGGER notes_count_delete AFTER DELETE ON notes BEGIN
            UPDATE note_counts SET n = n - 1 WHERE account_id = old.account_id AND mode = old.mode;
          END`,
        ]),
    `CREATE TABLE segments (
      note_id ${key} NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
      account_id ${key} NOT NULL,
      mode TEXT NOT NULL,
      position INTEGER NOT NULL,
      speaker TEXT NOT NULL,
      start_ms INTEGER NOT NULL,
      end_ms INTEGER NOT NULL,
      text TEXT NOT NULL,
      PRIMARY KEY (note_id, position)
    )`,
    `CREATE TABLE speakers (
      note_id ${key} NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
      account_id ${key} NOT NULL,
      mode TEXT NOT NULL,
      position INTEGER NOT NULL,
      label TEXT NOT NULL,
      name TEXT NOT NULL,
      PRIMARY KEY (note_id, position)
    )`,
    `CREATE TABLE highlights (
      id ${key} PRIMARY KEY,
      note_id ${key} NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
      account_id ${key} NOT NULL,
      mode TEXT NOT NULL,
      timestamp_ms INTEGER NOT NULL,
      text TEXT NOT NULL,
      created_at ${ts} NOT NULL
    )`,
    'CREATE INDEX highlights_note ON highlights (note_id, timestamp_ms)',
    `CREATE TABLE action_items (
      id ${key} PRIMARY KEY,
      note_id ${key} NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
      account_id ${key} NOT NULL,
      mode TEXT NOT NULL CHECK (mode IN ('live','test')),
      text TEXT NOT NULL,
      assignee TEXT,
      due TEXT,
      status TEXT NOT NULL CHECK (status IN ('pending','completed')),
      created_at ${ts} NOT NULL,
      updated_at ${ts} NOT NULL,
      completed_at ${ts}
    )`,
    'CREATE INDEX action_items_list ON action_items (account_id, mode, created_at DESC, id DESC)',
    'CREATE INDEX action_items_note ON action_items (note_id)',
    `CREATE TABLE events (
      seq ${pg ? 'BIGSERIAL PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT'},
      id ${key} NOT NULL UNIQUE,
      account_id ${key} NOT NULL,
      mode TEXT NOT NULL,
      type TEXT NOT NULL,
      payload TEXT NOT NULL,
      created_at ${ts} NOT NULL
    )`,
    'CREATE INDEX events_space ON events (account_id, mode, seq)',
    `CREATE TABLE jobs (
      id ${key} PRIMARY KEY,
      account_id ${key} NOT NULL,
      mode TEXT NOT NULL,
      type TEXT NOT NULL,
      payload TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('queued','running','done','failed')),
      attempts INTEGER NOT NULL DEFAULT 0,
      max_attempts INTEGER NOT NULL,
      run_at ${ts} NOT NULL,
      locked_until ${ts},
      locked_by TEXT,
      last_error TEXT,
      created_at ${ts} NOT NULL,
      updated_at ${ts} NOT NULL
    )`,
    'CREATE INDEX jobs_due ON jobs (status, run_at)',
    `CREATE TABLE idempotency_keys (
      account_id ${key} NOT NULL,
      mode TEXT NOT NULL,
      key TEXT NOT NULL,
      request_hash TEXT NOT NULL,
      response_status INTEGER,
      response_body TEXT,
      created_at ${ts} NOT NULL,
      PRIMARY KEY (account_id, mode, key)
    )`,
    `CREATE TABLE rate_limits (
      key_id ${key} NOT NULL,
      window_start ${ts} NOT NULL,
      count INTEGER NOT NULL,
      PRIMARY KEY (key_id, window_start)
    )`,
    ...(pg
      ? [
          `ALTER TABLE notes ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('english', title), 'A') ||
            setweight(to_tsvector('english', summary), 'B') ||
            to_tsvector('english', left(transcript, 300000))
          ) STORED`,
          'CREATE INDEX notes_search ON notes USING GIN (search_vector)',
        ]
      : [
          // External-content FTS5 over notes, keyed by the stable integer seq (rowids may move on VACUUM).
          `CREATE VIRTUAL TABLE notes_fts USING fts5(
            title, summary, transcript, content = 'notes', content_rowid = 'seq',
            tokenize = 'porter unicode61 remove_diacritics 2'
          )`,
          `CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
            INSERT INTO notes_fts (rowid, title, summary, transcript)
            VALUES (new.seq, new.title, new.summary, new.transcript);
          END`,
          `CREATE TRIGGER notes_fts_update AFTER UPDATE OF title, summary, transcript ON notes BEGIN
            INSERT INTO notes_fts (notes_fts, rowid, title, summary, transcript)
            VALUES ('delete', old.seq, old.title, old.summary, old.transcript);
            INSERT INTO notes_fts (rowid, title, summary, transcript)
            VALUES (new.seq, new.title, new.summary, new.transcript);
          END`,
          `CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
            INSERT INTO notes_fts (notes_fts, rowid, title, summary, transcript)
            VALUES ('delete', old.seq, old.title, old.summary, old.transcript);
          END`,
        ]),
  ],
};
