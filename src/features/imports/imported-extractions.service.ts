import type { Db } from '../../db/schema.ts';
import { importsRepo } from './imports.repo.ts';

/**
 * The action items and highlights an imported note brought from its source, in creation order: processing
 * keeps them and lets its analysis fill only what the source did not have. `db` may be a transaction.
 */
export function readImportedExtractions(db: Db, noteId: string) {
  return importsRepo.extractions(db, noteId);
}
