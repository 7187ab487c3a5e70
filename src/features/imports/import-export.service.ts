import fsp from 'node:fs/promises';
import type { Deps } from '../../deps.ts';
import type { Actor } from '../api-keys/scopes.ts';
import { type ImportNoteOutcome, importNote } from './import-note.service.ts';
import { ImportItemFailure, type ImportSource, type ParsedImport } from './imported-note.ts';
import { detectSource } from './parse-import.ts';
import type { DiskJsonFile, ExportFile, OpenSibling } from './read-export.ts';
import { ACCOUNT_EXPORT_FORMAT, ACCOUNT_EXPORT_VERSION, ExportManifest } from './sources/minutes-export.ts';
import { type OmiStreamPart, streamOmiExport } from './sources/omi-export-stream.ts';

/** What became of one item of an export: a note imported or found already, or the reason it failed. */
export type ImportItemOutcome =
  | ({ item: string; source: ImportSource } & ImportNoteOutcome)
  | { item: string; outcome: 'failed'; error: string };

export interface ImportExportOptions {
  /** Forces the source instead of finding it from each file (`--from`). */
  source?: ImportSource | undefined;
  /** The wearer's name, for the speaker the source marks as them. */
  me?: string | undefined;
  /** Called after each item (drives progress). */
  onItem?: (outcome: ImportItemOutcome) => void | Promise<void>;
}

/**
 * Imports an export's files one by one: each is read into notes in a processing thread, each note stored by
 * importNote (a note of a Minutes export into the data space it came from, in the caller's account). A file or
 * an item that cannot be read fails alone, named; the others go on. Importing the same export again skips
 * every note it stored.
 */
export async function importExport(
  deps: Deps,
  actor: Actor,
  files: AsyncIterable<ExportFile>,
  options: ImportExportOptions = {},
): Promise<ImportItemOutcome[]> {
  const outcomes: ImportItemOutcome[] = [];
  const report = async (outcome: ImportItemOutcome) => {
    outcomes.push(outcome);
    await options.onItem?.(outcome);
  };
  const store = async (parsed: ParsedImport, into: Actor, sibling?: OpenSibling) => {
    for (const error of parsed.errors)
      await report({ item: error.item, outcome: 'failed', error: error.message });
    for (const note of parsed.notes) {
      const owner = note.source === 'minutes' ? into : actor;
      try {
        await report({
          item: note.item,
          source: note.source,
          ...(await importNote(deps, owner, note, { sibling })),
        });
      } catch (err) {
        if (err instanceof ImportItemFailure) {
          await report({ item: note.item, outcome: 'failed', error: err.message });
          continue;
        }
        // A note the database refuses (a value out of its range) fails alone; anything else stops the import.
        if (!isDataError(err)) throw err;
        await report({ item: note.item, outcome: 'failed', error: 'the database refused this item' });
      }
    }
  };
  for await (const entry of files) {
    let file: ReadFile;
    if ('path' in entry) {
      const disk = await readDiskJson(entry, options.source, options.me);
      if ('conversations' in disk) {
        for await (const part of disk.conversations) await store({ source: 'omi', ...part }, actor);
        continue;
      }
      file = disk.file;
    } else file = entry;
    if ('error' in file) {
      await report({ item: file.name, outcome: 'failed', error: file.error });
      continue;
    }
    if (isManifest(file.name, file.bytes)) {
      const newer = newerVersion(file.bytes);
      if (newer === undefined) continue;
      // Read by an older Minutes, a newer export would lose the fields it does not know: nothing is imported.
      await report({
        item: file.name,
        outcome: 'failed',
        error: `the export's format version ${newer} is newer than this Minutes reads (${ACCOUNT_EXPORT_VERSION}): upgrade Minutes first`,
      });
      return outcomes;
    }
    const parsed = await deps.processing.parseImport({
      name: file.name,
      bytes: file.bytes,
      source: options.source,
      me: options.me,
    });
    await store(parsed, file.mode ? { ...actor, mode: file.mode } : actor, file.sibling);
  }
  return outcomes;
}

/** A file read whole, or the reason it was not. */
type ReadFile = Exclude<ExportFile, DiskJsonFile>;

/**
 * A JSON file on disk: an Omi export (by `--from`, else by its first 4 KiB) as its conversations, streamed;
 * anything else read whole, or an error naming it when it is larger than the limit.
 */
async function readDiskJson(
  file: DiskJsonFile,
  forced: ImportSource | undefined,
  me: string | undefined,
): Promise<{ conversations: AsyncIterable<OmiStreamPart> } | { file: ReadFile }> {
  const handle = await fsp.open(file.path, 'r');
  let head: Buffer;
  let size: number;
  try {
    size = (await handle.stat()).size;
    head = Buffer.alloc(Math.min(size, 4096));
    await handle.read(head, 0, head.length, 0);
  } finally {
    await handle.close();
  }
  if ((forced ?? detectSource(file.name, head)) === 'omi')
    return { conversations: streamOmiExport(file.name, file.path, me) };
  if (size > file.maxBytes)
    return {
      file: {
        name: file.name,
        error: `larger than the ${file.maxBytes} bytes a file may have (${size} bytes)`,
      },
    };
  return { file: { name: file.name, bytes: await fsp.readFile(file.path) } };
}

/** A Minutes export's manifest.json, which describes the export rather than being part of it. */
function isManifest(name: string, bytes: Uint8Array): boolean {
  if (!/(^|\/)manifest\.json$/.test(name)) return false;
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 512)).toString('utf8');
  return head.includes(ACCOUNT_EXPORT_FORMAT);
}

/** The manifest's format version when this Minutes cannot read it, else undefined. */
function newerVersion(bytes: Uint8Array): number | undefined {
  try {
    const manifest = ExportManifest.safeParse(JSON.parse(Buffer.from(bytes).toString('utf8')));
    if (manifest.success && manifest.data.version > ACCOUNT_EXPORT_VERSION) return manifest.data.version;
  } catch {
    // An unreadable manifest says nothing about the notes: they are read one by one and checked each.
  }
  return undefined;
}

function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  // PostgreSQL's class 22 (data exception); SQLite's constraint and range errors.
  return (
    typeof code === 'string' &&
    (code.startsWith('22') || code === 'SQLITE_CONSTRAINT_CHECK' || code === 'SQLITE_TOOBIG')
  );
}
