import path from 'node:path';
import type { Deps } from '../../deps.ts';
import type { Space } from '../../lib/space.ts';
import { audioKey } from '../storage/audio-storage.ts';
import { createTempPath, removeTempFile } from '../storage/temp-files.ts';
import { copyHashed } from './hashed-copy.ts';
import { type ExportedRecordingFields, ImportItemFailure } from './imported-note.ts';
import type { OpenSibling } from './read-export.ts';

type ExportedAudio = NonNullable<ExportedRecordingFields['audio']>;

/**
 * Copies a note's audio from its export into storage as the recording `recordingId`, streamed through a temp
 * file under DATA_DIR and checked against the size and SHA-256 its note file gives: a file that is missing or
 * does not match fails the note (ImportItemFailure) and leaves nothing behind. Returns the storage key.
 */
export async function storeImportedAudio(
  deps: Deps,
  space: Space,
  recordingId: string,
  audio: ExportedAudio,
  sibling: OpenSibling | undefined,
): Promise<string> {
  if (!sibling) throw new ImportItemFailure(`its audio file ${audio.file} cannot be read from this export`);
  const temp = await createTempPath(deps.config.dataDir);
  let copied: Awaited<ReturnType<typeof copyHashed>>;
  try {
    copied = await copyHashed(() => sibling(audio.file), temp);
  } catch (err) {
    await removeTempFile(temp);
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    throw new ImportItemFailure(
      missing
        ? `its audio file ${audio.file} is missing from the export`
        : `its audio file ${audio.file} could not be read (${(err as Error).message})`,
    );
  }
  if (copied.size_bytes !== audio.size_bytes || copied.sha256 !== audio.sha256) {
    await removeTempFile(temp);
    throw new ImportItemFailure(
      `its audio file ${audio.file} does not match its checksum (${copied.size_bytes} bytes, sha256 ${copied.sha256}; the note file says ${audio.size_bytes} bytes, sha256 ${audio.sha256})`,
    );
  }
  const key = audioKey(space, recordingId, path.extname(audio.file));
  try {
    await deps.audio.put(key, temp);
  } catch (err) {
    await removeTempFile(temp);
    throw err;
  }
  return key;
}
