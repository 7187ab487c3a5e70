import type { Migration } from '../migrate.ts';

/**
 * Recordings remember the SHA-256 of what was ingested (audio bytes or transcript file), so `minutes import`
 * can skip files it has imported before, per account and mode.
 */
export const recordings: Migration = {
  version: 4,
  name: 'recordings',
  statements: () => [
    'ALTER TABLE recordings ADD COLUMN content_sha256 TEXT',
    'CREATE INDEX recordings_content ON recordings (account_id, mode, content_sha256)',
    'CREATE INDEX recordings_note ON recordings (note_id)',
  ],
};
