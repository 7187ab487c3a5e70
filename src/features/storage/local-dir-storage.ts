import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { type AudioStorage, type ByteRange, isAudioKey } from './audio-storage.ts';

/** Audio files under `<dataDir>/audio/<mode>/<account>/<recording>.<ext>`. */
export function createLocalDirStorage(dataDir: string): AudioStorage {
  const root = path.join(dataDir, 'audio');
  const fileOf = (key: string) => {
    if (!isAudioKey(key)) throw new Error(`refusing storage key ${JSON.stringify(key)}`);
    return path.join(root, ...key.split('/'));
  };

  return {
    async put(key, localPath) {
      const target = fileOf(key);
      // Audio is private: folders 0700, files 0600 (a temp file is created 0600 already; a copy is narrowed).
      await fsp.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      try {
        // Temp files live under DATA_DIR too, so this is a rename on one file system: atomic, no copy.
        await fsp.rename(localPath, target);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        // DATA_DIR/tmp on another mount: copy beside the target, then rename into place.
        const partial = `${target}.partial`;
        await fsp.copyFile(localPath, partial);
        await fsp.chmod(partial, 0o600);
        await fsp.rename(partial, target);
        await fsp.rm(localPath, { force: true });
      }
    },

    async size(key) {
      try {
        return (await fsp.stat(fileOf(key))).size;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },

    async read(key, range?: ByteRange): Promise<Readable> {
      const file = fileOf(key);
      // Opened before returning, so a missing file fails here and not in the middle of a response.
      const handle = await fsp.open(file, 'r');
      // The stream owns the handle and closes it when done or destroyed (a client that hangs up).
      return fs.createReadStream(file, {
        fd: handle,
        ...(range ? { start: range.start, end: range.end } : {}),
      });
    },

    async withLocalFile(key, use) {
      return use(fileOf(key));
    },

    async delete(key) {
      await fsp.rm(fileOf(key), { force: true });
    },

    async *list() {
      for (const mode of await namesIn(root)) {
        for (const account of await namesIn(path.join(root, mode))) {
          for (const name of await namesIn(path.join(root, mode, account))) {
            const key = `${mode}/${account}/${name}`;
            // Only what audioKey makes: a `.partial` copy in progress or a stranger's file is not ours to list.
            if (!isAudioKey(key)) continue;
            const stat = await fsp.stat(fileOf(key)).catch(() => undefined);
            if (stat?.isFile()) yield { key, writtenMs: stat.mtimeMs };
          }
        }
      }
    },
  };
}

/** The names in a folder, sorted; none when it does not exist (or is gone meanwhile). */
async function namesIn(dir: string): Promise<string[]> {
  try {
    return (await fsp.readdir(dir)).sort();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw err;
  }
}
