import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** The size and SHA-256 (hex) of the bytes that went through a measuring stream. */
export interface Measured {
  size: number;
  sha256: string;
}

/**
 * A pass-through that hashes and counts the bytes on their way to a file, so the file is never read back or
 * held whole in memory. `measured` is read once the pipeline has finished.
 */
function measuringStream(): { stream: Transform; measured: () => Measured } {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.byteLength;
      done(null, chunk);
    },
  });
  return { stream, measured: () => ({ size, sha256: hash.digest('hex') }) };
}

/**
 * Streams `source` into a new file, measuring the bytes on the way. A failure is thrown only once the file is
 * closed: its opening runs in the thread pool and could otherwise come after the caller's removal of the file,
 * leaving it behind.
 */
export async function writeMeasured(
  source: Readable,
  file: string,
  options: { flags?: string; flush?: boolean; mode: number },
): Promise<Measured> {
  const { stream: measuring, measured } = measuringStream();
  const out = fs.createWriteStream(file, options);
  // From birth: an open that fails after the pipeline has given up must not reach uncaughtException.
  out.on('error', () => {});
  try {
    await pipeline(source, measuring, out);
  } catch (err) {
    if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
    throw err;
  }
  return measured();
}
