import type { Migration } from '../migrate.ts';

/**
 * What a permanent delete and the retention sweep need to find copies of content:
 * - `events.note_id`: the note an outbox event is about (its payload holds the note's content), so deleting a
 *   note redacts its events and cancels their pending deliveries. Filled for old events from the payload.
 * - `idempotency_keys.resource_id`: the object a stored response describes (note, recording, webhook), so
 *   deleting it redacts the stored response that would otherwise replay it.
 * - Indexes on the timestamps the retention sweep purges by.
 * - SQLite: the FTS5 indexes overwrite deleted entries instead of leaving them in old segments until a merge
 *   ('secure-delete', SQLite 3.44+), as `PRAGMA secure_delete` does for table pages (docs/decisions.md).
 */
export const deletionAndRetention: Migration = {
  version: 7,
  name: 'deletion-and-retention',
  statements: ({ key, pg }) => [
    `ALTER TABLE events ADD COLUMN note_id ${key}`,
    pg
      ? `UPDATE events SET note_id = CASE WHEN type LIKE 'note.%' THEN payload::json->'data'->>'id'
          ELSE payload::json->'data'->>'note_id' END`
      : `UPDATE events SET note_id = CASE WHEN type LIKE 'note.%' THEN json_extract(payload, '$.data.id')
          ELSE json_extract(payload, '$.data.note_id') END`,
    'CREATE INDEX events_note ON events (note_id) WHERE note_id IS NOT NULL',
    'CREATE INDEX events_created ON events (created_at)',
    `ALTER TABLE idempotency_keys ADD COLUMN resource_id ${key}`,
    'CREATE INDEX idempotency_keys_resource ON idempotency_keys (resource_id) WHERE resource_id IS NOT NULL',
    'CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)',
    "CREATE INDEX deliveries_completed ON deliveries (completed_at) WHERE status <> 'pending'",
    ...(pg
      ? []
      : [
          "INSERT INTO notes_fts (notes_fts, rank) VALUES ('secure-delete', 1)",
          "INSERT INTO search_chunks_fts (search_chunks_fts, rank) VALUES ('secure-delete', 1)",
        ]),
  ],
};
