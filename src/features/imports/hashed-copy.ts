import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { measuringStream } from '../storage/measuring-stream.ts';

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
  const { stream: measuring, measured } = measuringStream();
  try {
    await pipeline(source, measuring, fs.createWriteStream(target, { mode: 0o600 }));
  } catch (err) {
    source.destroy();
    await fsp.rm(target, { force: true });
    throw err;
  }
  const { size, sha256 } = measured();
  return { size_bytes: size, sha256 };
}
