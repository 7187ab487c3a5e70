import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import type { Mode } from '../../db/schema.ts';

/** Opens a file beside an export's file (a note's audio) as a stream; rejects when there is none. */
export type OpenSibling = (name: string) => Promise<Readable>;

/**
 * A file of an export, read into memory (one at a time), or the reason it was not. `sibling` opens the files
 * beside it that are not read as items (a Minutes note's audio).
 */
export type ExportFile =
  | { name: string; bytes: Uint8Array; mode?: Mode; sibling?: OpenSibling }
  | DiskJsonFile
  | { name: string; error: string };

/**
 * A JSON file left on disk for the importer: streamed when it is an Omi export (one conversation at a time,
 * whatever its size), read whole within `maxBytes` when it is anything else.
 */
export interface DiskJsonFile {
  name: string;
  path: string;
  maxBytes: number;
}

/** Whether a file of a folder is handed over on disk: JSON other than a Minutes export's manifest and notes. */
function leftOnDisk(name: string): boolean {
  return /\.json$/i.test(name) && !/(^|\/)manifest\.json$/.test(name) && spaceOfNoteFile(name) === undefined;
}

export interface ExportReadLimits {
  /** Largest file read, uncompressed (an Omi export is one JSON file; a lifelog or a note is one each). */
  maxEntryBytes: number;
}

/** A ZIP entry expanding more than this many times its compressed size (past 1 MiB) is taken for a bomb. */
const MAX_RATIO = 200;
const RATIO_FLOOR_BYTES = 1024 * 1024;
/** The most an archive may expand to in all, and the most entries it may list. */
const MAX_TOTAL_BYTES = 20 * 1024 ** 3;
const MAX_ENTRIES = 1_000_000;

/** Whether a file is read as part of an export: lifelogs (Markdown) and JSON (Omi, Minutes). */
export function isExportFile(name: string): boolean {
  return /\.(md|json)$/i.test(name);
}

/**
 * The files of a ZIP export, streamed entry by entry with yauzl (the central directory is read, never the
 * whole archive): each Markdown or JSON entry in turn, the others passed over. An entry with an unsafe name
 * (absolute, `..`, a drive letter), one larger than the limit or expanding like a bomb is reported by name and
 * not read; an archive that is not a ZIP, or expands past the total limit, ends with one error. The first `skip`
 * files (what an earlier step of the import counted) are listed and checked as before but neither read nor
 * given, so a step costs what it imports, not everything before it.
 */
export async function* readZipExport(
  file: string,
  limits: ExportReadLimits,
  skip = 0,
): AsyncGenerator<ExportFile> {
  // Every file given (or skipped) counts, errors included, so `skip` means the same files in every step.
  let position = 0;
  const due = () => position++ >= skip;
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(file);
  } catch (err) {
    if (due())
      yield { name: path.basename(file), error: `not a readable ZIP archive (${(err as Error).message})` };
    return;
  }
  let total = 0;
  let entries = 0;
  const counted = { bytes: 0 };
  let audio: ZipAudio | undefined;
  try {
    audio = await zipAudio(file);
  } catch {
    // The listing below meets the same damage and reports it.
  }
  try {
    for await (const entry of zipEntries(zip)) {
      entries += 1;
      const name = entryName(entry);
      if (entries > MAX_ENTRIES) {
        if (due())
          yield { name: path.basename(file), error: `the archive lists more than ${MAX_ENTRIES} entries` };
        return;
      }
      if (name.endsWith('/') || !isExportFile(name)) continue;
      if (!isSafeEntryName(name)) {
        if (due())
          yield { name, error: 'unsafe entry name (absolute, or leading out of the archive): not read' };
        continue;
      }
      const size = entry.uncompressedSize;
      if (size > RATIO_FLOOR_BYTES && size > MAX_RATIO * Math.max(1, entry.compressedSize)) {
        if (due())
          yield {
            name,
            error: `expands ${Math.round(size / Math.max(1, entry.compressedSize))} times: taken for a ZIP bomb, not read`,
          };
        continue;
      }
      if (size > limits.maxEntryBytes) {
        if (due())
          yield {
            name,
            error: `larger than the ${limits.maxEntryBytes} bytes an entry may have (${size} bytes)`,
          };
        continue;
      }
      total += size;
      counted.bytes = total;
      if (total > MAX_TOTAL_BYTES) {
        if (due())
          yield {
            name: path.basename(file),
            error: `the archive expands to more than ${MAX_TOTAL_BYTES} bytes`,
          };
        return;
      }
      if (!due()) continue;
      try {
        const bytes = await readEntry(zip, entry, limits.maxEntryBytes);
        const mode = spaceOfNoteFile(name);
        yield {
          name,
          bytes,
          ...(mode ? { mode } : {}),
          ...(audio ? { sibling: audio.siblingOf(name, counted) } : {}),
        };
      } catch (err) {
        yield { name, error: `could not be read (${(err as Error).message})` };
      }
    }
  } catch (err) {
    if (due())
      yield { name: path.basename(file), error: `the archive is damaged (${(err as Error).message})` };
  } finally {
    zip.close();
    audio?.close();
  }
}

interface ZipAudio {
  /** Opens an audio entry beside the entry `name`, its bytes added to `counted` against the archive's limit. */
  siblingOf(name: string, counted: { bytes: number }): OpenSibling;
  close(): void;
}

/**
 * The audio entries of a Minutes export in a ZIP (`live/notes/rec_….wav`), found from the central directory in
 * a first pass and opened on demand from a second handle on the archive, so a note's audio is streamed whether
 * its entry comes before or after the note's. An audio entry is held to the bomb ratio and the archive's total.
 */
async function zipAudio(file: string): Promise<ZipAudio | undefined> {
  const zip = await openZip(file);
  const found = new Map<string, yauzl.Entry>();
  let listed = 0;
  try {
    for await (const entry of zipEntries(zip)) {
      listed += 1;
      if (listed > MAX_ENTRIES) break;
      const name = entryName(entry);
      if (isExportAudioFile(name) && isSafeEntryName(name)) found.set(name, entry);
    }
  } catch (err) {
    zip.close();
    throw err;
  }
  if (!found.size) {
    zip.close();
    return undefined;
  }
  return {
    siblingOf: (name, counted) => async (sibling) => {
      const full = `${name.slice(0, name.lastIndexOf('/') + 1)}${sibling}`;
      const entry = sibling === path.posix.basename(sibling) ? found.get(full) : undefined;
      if (!entry)
        throw Object.assign(new Error(`no entry ${JSON.stringify(full)} in the archive`), { code: 'ENOENT' });
      const size = entry.uncompressedSize;
      if (size > RATIO_FLOOR_BYTES && size > MAX_RATIO * Math.max(1, entry.compressedSize))
        throw new Error('it expands like a ZIP bomb');
      if (counted.bytes + size > MAX_TOTAL_BYTES)
        throw new Error(`the archive expands to more than ${MAX_TOTAL_BYTES} bytes`);
      counted.bytes += size;
      // yauzl checks the bytes streamed against the size the directory gives (validateEntrySizes).
      return new Promise<Readable>((resolve, reject) =>
        zip.openReadStream(entry, (err, stream) => (err ? reject(err) : resolve(stream))),
      );
    },
    close: () => zip.close(),
  };
}

/**
 * The files of an export folder (a Limitless `lifelogs/` folder, a Minutes account export): every Markdown and
 * JSON file under it, sorted, read one at a time. A note file of a Minutes export carries its data space.
 */
export async function* readFolderExport(dir: string, limits: ExportReadLimits): AsyncGenerator<ExportFile> {
  // A Minutes export's manifest first: it says whether this version can read the rest.
  const names = ((await fsp.readdir(dir, { recursive: true })) as string[])
    .filter(isExportFile)
    .sort(
      (a, b) => Number(b === 'manifest.json') - Number(a === 'manifest.json') || (a < b ? -1 : a > b ? 1 : 0),
    );
  for (const relative of names) {
    const full = path.join(dir, relative);
    const stat = await fsp.stat(full);
    if (!stat.isFile()) continue;
    const name = relative.split(path.sep).join('/');
    if (leftOnDisk(name)) {
      yield { name, path: full, maxBytes: limits.maxEntryBytes };
      continue;
    }
    if (stat.size > limits.maxEntryBytes) {
      yield {
        name,
        error: `larger than the ${limits.maxEntryBytes} bytes a file may have (${stat.size} bytes)`,
      };
      continue;
    }
    const mode = spaceOfNoteFile(name);
    yield { name, bytes: await fsp.readFile(full), ...(mode ? { mode } : {}), sibling: siblingOf(full) };
  }
}

/** Opens plain file names in the folder of `file`; a name with a path in it is refused. */
function siblingOf(file: string): OpenSibling {
  return async (name) => {
    if (!name || name !== path.basename(name) || name === '.' || name === '..')
      throw new Error(`refusing the file name ${JSON.stringify(name)}`);
    const full = path.join(path.dirname(file), name);
    // Opened first, so a missing file is this promise's rejection and not a stream's error later.
    const handle = await fsp.open(full, 'r');
    return fs.createReadStream(full, { fd: handle });
  };
}

/** The data space of a note file of a Minutes account export (`live/notes/….json`), wherever the export lies. */
export function spaceOfNoteFile(name: string): Mode | undefined {
  return /(?:^|\/)(live|test)\/notes\/[^/]+\.json$/.exec(name)?.[1] as Mode | undefined;
}

/** The audio file of a note of a Minutes account export (`live/notes/rec_….wav`): read with its note, not alone. */
export function isExportAudioFile(name: string): boolean {
  return /(?:^|\/)(?:live|test)\/notes\/rec_[0-9A-Za-z]{24}(?:\.[a-z0-9]{2,5})?$/.test(name);
}

/** One file given on its own (a lifelog, an Omi export, a note of a Minutes export). */
export async function* readExportFile(file: string, limits: ExportReadLimits): AsyncGenerator<ExportFile> {
  if (leftOnDisk(file.split(path.sep).join('/'))) {
    yield { name: file, path: file, maxBytes: limits.maxEntryBytes };
    return;
  }
  const size = (await fsp.stat(file)).size;
  if (size > limits.maxEntryBytes) {
    yield {
      name: file,
      error: `larger than the ${limits.maxEntryBytes} bytes a file may have (${size} bytes)`,
    };
    return;
  }
  const mode = spaceOfNoteFile(file.split(path.sep).join('/'));
  yield { name: file, bytes: await fsp.readFile(file), ...(mode ? { mode } : {}), sibling: siblingOf(file) };
}

/**
 * How many files of a ZIP export will be read (Markdown and JSON entries), from its central directory alone: the
 * total of a progress bar. An archive that cannot be opened counts as one (its error).
 */
export async function countZipExportFiles(file: string): Promise<number> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(file);
  } catch {
    return 1;
  }
  let count = 0;
  try {
    for await (const entry of zipEntries(zip)) {
      const name = entryName(entry);
      if (!name.endsWith('/') && isExportFile(name)) count += 1;
    }
  } catch {
    // A damaged directory: what was listed so far, and the error it will be reported as.
    count += 1;
  } finally {
    zip.close();
  }
  return Math.max(count, 1);
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(
      file,
      // Names are checked here (an unsafe one skips its entry, not the archive); sizes are checked by yauzl too.
      { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true },
      (err, zip) => {
        if (err) return reject(err);
        // zipEntries listens while it reads; between reads an error must not reach uncaughtException.
        zip.on('error', () => {});
        resolve(zip);
      },
    ),
  );
}

/** The entries one at a time, the next read only when the caller asks for it. */
async function* zipEntries(zip: yauzl.ZipFile): AsyncGenerator<yauzl.Entry> {
  for (;;) {
    const next = await new Promise<yauzl.Entry | undefined>((resolve, reject) => {
      const onEntry = (entry: yauzl.Entry) => {
        cleanup();
        resolve(entry);
      };
      const onEnd = () => {
        cleanup();
        resolve(undefined);
      };
      const onError = (err: Error) => {
        cleanup();
        reject(err);
      };
      const cleanup = () => {
        zip.off('entry', onEntry);
        zip.off('end', onEnd);
        zip.off('error', onError);
      };
      zip.on('entry', onEntry);
      zip.on('end', onEnd);
      zip.on('error', onError);
      zip.readEntry();
    });
    if (!next) return;
    yield next;
  }
}

/** An entry name as UTF-8 (the ZIP's language flag) or else CP437, which for ASCII names is the same. */
function entryName(entry: yauzl.Entry): string {
  const raw = entry.fileName as unknown as Buffer;
  const utf8 = (entry.generalPurposeBitFlag & 0x800) !== 0;
  return utf8 ? raw.toString('utf8') : raw.toString('latin1');
}

/** Relative, without `..` segments, drive letters or backslashes: an entry that cannot lead out of the archive. */
export function isSafeEntryName(name: string): boolean {
  if (!name || name.startsWith('/') || name.includes('\\') || name.includes('\0') || /^[a-zA-Z]:/.test(name))
    return false;
  return !name.split('/').some((part) => part === '..');
}

async function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, limit: number): Promise<Uint8Array> {
  const stream = await new Promise<Readable>((resolve, reject) =>
    zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))),
  );
  const chunks: Buffer[] = [];
  let size = 0;
  // Counted as it comes: a header that lies about the size is caught by yauzl, and this bounds it regardless.
  for await (const chunk of stream) {
    size += (chunk as Buffer).byteLength;
    if (size > limit) {
      stream.destroy();
      throw new Error(`expands past the ${limit} bytes an entry may have`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
