import type { Migration } from '../migrate.ts';

/**
 * Imported notes remember where they came from (`source`: limitless, omi, minutes; `source_id`: the item's id
 * there), once per data space, so importing the same export again creates nothing. Notes made here have neither.
 */
export const noteSources: Migration = {
  version: 14,
  name: 'note-sources',
  statements: ({ key }) => [
    'ALTER TABLE notes ADD COLUMN source TEXT',
    `ALTER TABLE notes ADD COLUMN source_id ${key}`,
    'CREATE UNIQUE INDEX notes_source ON notes (account_id, mode, source, source_id)',
  ],
};
