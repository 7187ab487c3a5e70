import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';

/** The size and SHA-256 (hex) of the bytes that went through a measuring stream. */
export interface Measured {
  size: number;
  sha256: string;
}

/**
 * A pass-through that hashes and counts the bytes on their way to a file, so the file is never read back or
 * held whole in memory. `measured` is read once the pipeline has finished.
 */
export function measuringStream(): { stream: Transform; measured: () => Measured } {
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
