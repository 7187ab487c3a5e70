import type { AudioStorage } from './audio-storage.ts';
import { createLocalDirStorage } from './local-dir-storage.ts';

/** The storage the configuration selects: files under `<DATA_DIR>/audio`. */
export function createAudioStorage(config: { dataDir: string }): AudioStorage {
  return createLocalDirStorage(config.dataDir);
}
