import type { Migration } from '../migrate.ts';

/**
 * The language a note or recording is in (BCP 47, as given on POST /v1/notes or POST /v1/recordings; null when
 * not given), and the note's `analysis_notes`: what the analysis could not do and why (the builtin analyzer on
 * a note that is not in English). All nullable, so existing rows need nothing.
 */
export const languages: Migration = {
  version: 13,
  name: 'languages',
  statements: () => [
    'ALTER TABLE notes ADD COLUMN language TEXT',
    'ALTER TABLE notes ADD COLUMN analysis_notes TEXT',
    'ALTER TABLE recordings ADD COLUMN language TEXT',
  ],
};
