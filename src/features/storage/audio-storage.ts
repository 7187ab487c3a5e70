import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Mode } from '../../db/schema.ts';

/** An inclusive byte range, as HTTP `Range: bytes=start-end` means it. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where audio files live. The local directory under DATA_DIR is the one implementation; an S3-compatible
 * store fits the same five operations (put = upload + unlink, withLocalFile = download to a temp file).
 * Keys are made by `audioKey` only, never from user input.
 */
export interface AudioStorage {
  /** Moves a complete local file (a temp file under DATA_DIR) into storage; the local file is gone after. */
  put(key: string, localPath: string): Promise<void>;
  /** The stored object's size in bytes, or undefined when there is none. */
  size(key: string): Promise<number | undefined>;
  /** The stored bytes, or the inclusive range of them. */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /** Runs `use` with a path to a local file holding the object's bytes, valid until `use` settles. */
  withLocalFile<T>(key: string, use: (path: string) => Promise<T>): Promise<T>;
  /** Removes the object; removing one that is not there is not an error. */
  delete(key: string): Promise<void>;
  /** Every stored object with the time it was written (ms since the epoch), one account's after another's. */
  list(): AsyncIterable<{ key: string; writtenMs: number }>;
}

const KEY_RE = /^(?:live|test)\/acct_[0-9A-Za-z]+\/rec_[0-9A-Za-z]{24}(?:\.[a-z0-9]{2,5})?$/;

/** The storage key of a recording's audio: mode, account and recording id (plus the format's extension). */
export function audioKey(space: { accountId: string; mode: Mode }, recordingId: string, extension: string) {
  const key = `${space.mode}/${space.accountId}/${recordingId}${extension}`;
  if (!isAudioKey(key)) throw new Error(`not a valid audio storage key: ${key}`);
  return key;
}

/** True for keys `audioKey` makes; anything else (`..`, absolute paths) is refused by the storage. */
export function isAudioKey(key: string): boolean {
  return KEY_RE.test(key);
}

/**
 * Deletes the audio of recordings whose rows were deleted. Call it after the transaction committed: a file
 * removed before a rollback could not be brought back. Failures are logged, not thrown — the rows are gone, so
 * the caller's operation has succeeded; what remains is an orphaned file.
 */
export async function deleteAudioFiles(
  storage: AudioStorage,
  keys: readonly (string | null | undefined)[],
  logger?: Logger,
): Promise<void> {
  for (const key of keys) {
    if (!key) continue;
    try {
      await storage.delete(key);
    } catch (err) {
      logger?.error({ err, storage_key: key }, 'could not delete the audio file of a deleted recording');
    }
  }
}
