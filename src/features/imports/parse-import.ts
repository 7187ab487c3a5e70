import type { ImportSource, ParsedImport } from './imported-note.ts';
import { decodeUtf8, SourceItemError } from './sources/decode-text.ts';
import { parseLimitlessLifelog } from './sources/limitless-lifelog-json.ts';
import { parseLimitlessMarkdown } from './sources/limitless-markdown.ts';
import { parseMinutesNote } from './sources/minutes-export.ts';
import { parseOmiExport } from './sources/omi-export.ts';

/** One file of an export, to be read in a processing thread. */
export interface ImportFileTask {
  /** The file's name in its export (errors name it). */
  name: string;
  bytes: Uint8Array;
  /** Forced by `--from`; otherwise found from the name and the content. */
  source?: ImportSource | undefined;
  /** The wearer's name, for the speaker the source marks as them. */
  me?: string | undefined;
}

/**
 * Reads one file of an export into the notes it holds (pure: runs in a processing thread, since a file may be
 * megabytes of JSON or Markdown). A file that cannot be read at all is one error naming it; an Omi export with
 * some bad conversations gives the others and an error per bad one.
 */
export function parseImportFile(task: ImportFileTask): ParsedImport {
  const source = task.source ?? detectSource(task.name, task.bytes);
  try {
    const text = decodeUtf8(task.bytes);
    if (source === 'limitless' && !/\.json$/i.test(task.name)) {
      return { source, notes: [parseLimitlessMarkdown(task.name, text, task.me)], errors: [] };
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new SourceItemError(`not valid JSON (${(err as Error).message})`);
    }
    if (source === 'minutes') return { source, notes: [parseMinutesNote(task.name, json)], errors: [] };
    if (source === 'limitless')
      return { source, notes: [parseLimitlessLifelog(task.name, json, task.me)], errors: [] };
    return { source, ...parseOmiExport(task.name, json, task.me) };
  } catch (err) {
    if (!(err instanceof SourceItemError)) throw err;
    return { source, notes: [], errors: [{ item: task.name, message: err.message }] };
  }
}

/**
 * Markdown is a Limitless lifelog; JSON is a Minutes note or a lifelog of Limitless's API when it has their
 * fields, else an Omi export.
 */
export function detectSource(name: string, bytes: Uint8Array): ImportSource {
  if (/\.md$/i.test(name)) return 'limitless';
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString('utf8');
  if (/"title_locked"\s*:/.test(head) && /"transcript"\s*:/.test(head)) return 'minutes';
  return /"contents"\s*:/.test(head) && /"startTime"\s*:/.test(head) ? 'limitless' : 'omi';
}
