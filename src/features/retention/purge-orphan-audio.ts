import type { Mode } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { recordingStorageKeys } from '../recordings/recordings.service.ts';

/**
 * Audio written this recently is left alone: an upload or an import stores its file just before the transaction
 * that records it commits.
 */
export const ORPHAN_AUDIO_AGE_MS = 3_600_000;

/**
 * Removes stored audio that no recording refers to: the file of an import or upload killed between storing it and
 * committing its rows and never resumed, or of a delete whose file removal failed after its rows were gone.
 * Reads the keys one account at a time. Returns how many files it removed.
 */
export async function purgeOrphanAudio(deps: Pick<Deps, 'db' | 'audio'>, now = Date.now()): Promise<number> {
  let removed = 0;
  let folder: string | undefined;
  let referenced = new Set<string>();
  for await (const { key, writtenMs } of deps.audio.list()) {
    if (now - writtenMs < ORPHAN_AUDIO_AGE_MS) continue;
    const [mode, accountId] = key.split('/') as [Mode, string];
    if (`${mode}/${accountId}` !== folder) {
      folder = `${mode}/${accountId}`;
      referenced = await recordingStorageKeys(deps.db, { accountId, mode });
    }
    if (referenced.has(key)) continue;
    await deps.audio.delete(key);
    removed++;
  }
  return removed;
}
