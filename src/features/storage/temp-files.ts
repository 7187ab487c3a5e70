import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBase62 } from '../../lib/ids.ts';

/** Upload temp files older than this belong to a process that died mid-upload; they are swept. */
const STALE_MS = 24 * 3600_000;
const PREFIX = 'upload-';

const swept = new Set<string>();

/** `<dataDir>/tmp`: on the same file system as the audio directory, so finished uploads are moved, not copied. */
export function tempDirOf(dataDir: string): string {
  return path.join(dataDir, 'tmp');
}

/** Upload temp files are private to the service's user, as the audio they become (create them with this). */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * A fresh path for an upload in progress (a folder of mode 0700). The first call per directory and process also removes stale
 * temp files left by a crashed process (in the background; failures to sweep are harmless).
 */
export async function createTempPath(dataDir: string): Promise<string> {
  const dir = tempDirOf(dataDir);
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  if (!swept.has(dir)) {
    swept.add(dir);
    sweepStale(dir).catch(() => {});
  }
  return path.join(dir, `${PREFIX}${Date.now()}-${randomBase62(12)}`);
}

/** Removes a temp file if it is still there. */
export async function removeTempFile(file: string): Promise<void> {
  await fsp.rm(file, { force: true });
}

async function sweepStale(dir: string): Promise<void> {
  const cutoff = Date.now() - STALE_MS;
  for (const name of await fsp.readdir(dir)) {
    if (!name.startsWith(PREFIX)) continue;
    const file = path.join(dir, name);
    const stat = await fsp.stat(file).catch(() => undefined);
    if (stat && stat.mtimeMs < cutoff) await fsp.rm(file, { force: true });
  }
}
