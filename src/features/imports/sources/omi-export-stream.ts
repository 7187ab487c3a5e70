import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { TextDecoder } from 'node:util';
import { JSONParser } from '@streamparser/json';
import type { ImportedNote, ImportItemError } from '../imported-note.ts';
import {
  NOT_AN_OMI_EXPORT,
  type OmiExportContext,
  omiExportContext,
  readOmiConversation,
} from './omi-export.ts';

/** The most bytes of the file one conversation may span: past it, the file's reading stops with an error. */
export const MAX_CONVERSATION_BYTES = 32 * 1024 * 1024;
/** Read in small pieces: each is parsed on the event loop, so a piece's parse stays within a few milliseconds. */
const PIECE_BYTES = 16 * 1024;

/** One conversation read: its note, or the error naming it, or the error that ends the file. */
export type OmiStreamPart = { notes: ImportedNote[]; errors: ImportItemError[] };

/**
 * Omi's export read from a file one conversation at a time with @streamparser/json, so memory holds one
 * conversation and the export's `people` and loose `action_items`, never the whole file. The export object is
 * read twice: first for `people` and `action_items` (they may come after `conversations`), then for the
 * conversations; the older bare array once. A conversation without the documented shape is an error naming
 * it and the others are read; JSON that breaks off or goes wrong ends the file with an error naming where,
 * after the conversations before it.
 */
export async function* streamOmiExport(
  fileName: string,
  file: string,
  me?: string,
): AsyncGenerator<OmiStreamPart> {
  const root = await rootKind(file);
  if (!root) {
    yield { notes: [], errors: [{ item: fileName, message: NOT_AN_OMI_EXPORT }] };
    return;
  }
  let context: OmiExportContext = omiExportContext(undefined, undefined);
  if (root === 'object') {
    const found: { people?: unknown; action_items?: unknown } = {};
    // Errors are left to the second reading, which reports them after the conversations before them.
    const scan = values(file, ['$.conversations.*', '$.people', '$.action_items']);
    try {
      for await (const v of scan) {
        if (v.key === 'people' || v.key === 'action_items') found[v.key] = v.value;
      }
    } catch {
      // reported below
    }
    context = omiExportContext(found.people, found.action_items);
  }
  let seen = 0;
  try {
    for await (const v of values(file, root === 'array' ? ['$.*'] : ['$.conversations.*'])) {
      const i = typeof v.key === 'number' ? v.key : seen;
      seen += 1;
      const read = readOmiConversation(fileName, i, v.value, context, me);
      if (read)
        yield 'note' in read ? { notes: [read.note], errors: [] } : { notes: [], errors: [read.error] };
    }
  } catch (err) {
    // The conversations before the damage were read; from it on, nothing can be.
    const message =
      err instanceof ConversationTooLarge
        ? `conversations[${seen}] is larger than the ${MAX_CONVERSATION_BYTES} bytes a conversation may have: the rest of the file is not read`
        : err instanceof NotUtf8
          ? `not valid UTF-8 text from conversations[${seen}] on`
          : `not valid JSON from conversations[${seen}] on (${(err as Error).message})`;
    yield { notes: [], errors: [{ item: fileName, message }] };
    return;
  }
  if (root === 'object' && seen === 0)
    yield { notes: [], errors: [{ item: fileName, message: NOT_AN_OMI_EXPORT }] };
}

class ConversationTooLarge extends Error {}
class NotUtf8 extends Error {}

function decodeStrictly(decoder: TextDecoder, piece: Buffer | undefined): string {
  try {
    return piece ? decoder.decode(piece, { stream: true }) : decoder.decode();
  } catch {
    throw new NotUtf8();
  }
}

/** Whether the file's JSON starts an array or an object (after a byte-order mark and white space). */
async function rootKind(file: string): Promise<'array' | 'object' | undefined> {
  const handle = await fsp.open(file, 'r');
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const first = /^(?:\uFEFF)?\s*([[{])/.exec(head.subarray(0, bytesRead).toString('utf8'))?.[1];
    return first === '[' ? 'array' : first === '{' ? 'object' : undefined;
  } finally {
    await handle.close();
  }
}

/** The values at `paths`, in file order, each dropped by the parser once given (keepStack: false). */
async function* values(
  file: string,
  paths: string[],
): AsyncGenerator<{ key: string | number | undefined; value: unknown }> {
  const parser = new JSONParser({ paths, keepStack: false });
  const ready: { key: string | number | undefined; value: unknown }[] = [];
  let failure: Error | undefined;
  let ended = false;
  parser.onValue = ({ value, key }) => {
    ready.push({ key, value });
  };
  parser.onError = (err) => {
    failure ??= err;
  };
  parser.onEnd = () => {
    ended = true;
  };
  const stream = fs.createReadStream(file, { highWaterMark: PIECE_BYTES });
  stream.on('error', (err) => {
    failure ??= err;
  });
  // Decoded here, strictly: a byte that is not UTF-8 is an error, not a replacement character.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let since = 0;
  try {
    for await (const piece of stream as AsyncIterable<Buffer>) {
      parser.write(decodeStrictly(decoder, piece));
      // Bytes read since a value last ended: a value that spans more is never held whole.
      since = ready.length ? 0 : since + piece.length;
      if (since > MAX_CONVERSATION_BYTES) throw new ConversationTooLarge();
      for (const v of ready.splice(0)) yield v;
      if (failure) throw failure;
    }
    if (failure) throw failure;
    const rest = decodeStrictly(decoder, undefined);
    if (rest) parser.write(rest);
    if (!ended && !failure) parser.end();
    if (failure) throw failure;
    for (const v of ready.splice(0)) yield v;
  } finally {
    stream.destroy();
  }
}
