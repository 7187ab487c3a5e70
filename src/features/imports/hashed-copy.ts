import fsp from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { writeMeasured } from '../storage/measuring-stream.ts';

/** What a copy wrote: its size and SHA-256 (hex), measured on the bytes as they passed. */
export interface CopiedFile {
  size_bytes: number;
  sha256: string;
}

/**
 * Streams `source` into a new file at `target` (mode 0600), hashing and counting on the way, so an audio file is
 * never whole in memory. The source is a function so the stream gets its error handler the moment it exists; a
 * copy that fails removes what it wrote.
 */
export async function copyHashed(open: () => Promise<Readable>, target: string): Promise<CopiedFile> {
  const source = await open();
  // pipeline listens from here; this covers the moment before it does.
  source.on('error', () => {});
  try {
    const { size, sha256 } = await writeMeasured(source, target, { mode: 0o600 });
    return { size_bytes: size, sha256 };
  } catch (err) {
    source.destroy();
    await fsp.rm(target, { force: true });
    throw err;
  }
}
