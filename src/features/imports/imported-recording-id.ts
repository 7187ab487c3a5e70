import { createHash } from 'node:crypto';
import type { Db } from '../../db/schema.ts';
import { ID_PREFIX } from '../../lib/ids.ts';
import type { Space } from '../../lib/space.ts';
import { importsRepo } from './imports.repo.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A recording id derived from the space, the exported id and an attempt number: the same inputs, the same id. */
function derivedRecordingId(space: Space, exportedId: string, attempt: number): string {
  const digest = createHash('sha256')
    .update(`${space.accountId}\0${space.mode}\0${exportedId}\0${attempt}`)
    .digest();
  let id = '';
  for (const byte of digest) if (id.length < 24) id += ALPHABET[byte % 62];
  return ID_PREFIX.recording + id;
}

/**
 * The id an exported recording is imported under, and so its audio's storage key: the exported id where it is
 * free, else the first free id derived from it for this space. Never random, so an import killed after storing
 * the audio but before committing the rows picks the same key when it resumes and overwrites that file instead
 * of leaving it behind.
 */
export async function importedRecordingId(db: Db, space: Space, exportedId: string): Promise<string> {
  if (!(await importsRepo.recordingIdTaken(db, exportedId))) return exportedId;
  for (let attempt = 0; ; attempt++) {
    const id = derivedRecordingId(space, exportedId, attempt);
    if (!(await importsRepo.recordingIdTaken(db, id))) return id;
  }
}
