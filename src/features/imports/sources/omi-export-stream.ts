import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { BACKGROUND_NICE_INCREMENT } from '../../../lib/thread-priority.ts';
import type { ImportedNote, ImportItemError } from '../imported-note.ts';
import {
  NOT_AN_OMI_EXPORT,
  type OmiExportContext,
  omiExportContext,
  readOmiConversation,
} from './omi-export.ts';
import { OMI_JSON_THREAD_SOURCE } from './omi-json-thread.source.ts';

const require = createRequire(import.meta.url);

/** The most bytes of the file one conversation may span: past it, the file's reading stops with an error. */
export const MAX_CONVERSATION_BYTES = 32 * 1024 * 1024;
/** Read and parsed in pieces of this size in the parsing thread. */
const PIECE_BYTES = 16 * 1024;
/** The thread answers with the values of about this much of the file at a time (fewer round trips, bounded). */
const ANSWER_BYTES = 256 * 1024;

/** One conversation read: its note, or the error naming it, or the error that ends the file. */
export type OmiStreamPart = { notes: ImportedNote[]; errors: ImportItemError[] };

/**
 * Omi's export read from a file one conversation at a time with @streamparser/json in a thread of its own (at
 * most MAX_PARSE_THREADS parsing at once), so the event loop never parses and memory holds a few conversations and the
 * export's `people` and loose `action_items`, never the whole file. The export object is read twice: first for
 * `people` and `action_items` (they may come after `conversations`), then for the conversations; the older bare
 * array once. A conversation without the documented shape is an error naming it and the others are read; JSON
 * that breaks off or goes wrong ends the file with an error naming where, after the conversations before it.
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
    // Conversations are parsed only to be dropped (never held whole), and not sent.
    const scan = values(
      file,
      ['$.conversations.*', '$.people', '$.action_items'],
      ['people', 'action_items'],
    );
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

/**
 * Reading threads parsing at once; the others wait, first come first served. A reading holds a place only while its
 * thread parses its next answer, not while the import stores what it was given, so one account's long import never
 * keeps another's waiting for more than an answer's parse.
 */
export const MAX_PARSE_THREADS = 2;
let parsing = 0;
const waitingToParse: (() => void)[] = [];

/** Threads parsing now, and readings waiting for a place to parse. */
export const parseThreadUse = () => ({ running: parsing, waiting: waitingToParse.length });

/** Takes a place to parse (waiting for one if all are taken); the function returned gives it back, once. */
export async function parsePlace(): Promise<() => void> {
  if (parsing >= MAX_PARSE_THREADS) await new Promise<void>((resolve) => waitingToParse.push(resolve));
  else parsing += 1;
  let released = false;
  // A place freed passes straight to the next waiter, so the count never exceeds the cap.
  return () => {
    if (released) return;
    released = true;
    const next = waitingToParse.shift();
    if (next) next();
    else parsing -= 1;
  };
}

type ThreadAnswer = {
  values: { key: string | number | undefined; value: unknown }[];
  done?: boolean;
  error?: { kind: 'too-large' | 'not-utf8' | 'json'; message: string };
};

/**
 * The values at `paths` (only those keyed by one of `keys`, when given), in file order, read and parsed in a thread
 * of their own (omi-json-thread.source.ts) one answer at a time: the thread reads on only when the values given
 * so far have been taken.
 */
async function* values(
  file: string,
  paths: string[],
  keys?: string[],
): AsyncGenerator<{ key: string | number | undefined; value: unknown }> {
  const answers: (ThreadAnswer | Error)[] = [];
  let wake: (() => void) | undefined;
  const push = (answer: ThreadAnswer | Error) => {
    answers.push(answer);
    wake?.();
  };
  const thread = new Worker(OMI_JSON_THREAD_SOURCE, {
    eval: true,
    workerData: {
      parserPath: require.resolve('@streamparser/json'),
      file,
      paths,
      keys,
      pieceBytes: PIECE_BYTES,
      answerBytes: ANSWER_BYTES,
      maxValueBytes: MAX_CONVERSATION_BYTES,
      niceIncrement: BACKGROUND_NICE_INCREMENT,
    },
  });
  let finished = false;
  thread.on('message', (answer: ThreadAnswer) => {
    if (answer.done || answer.error) finished = true;
    push(answer);
  });
  thread.on('error', (err) => push(err));
  thread.on('exit', () => {
    if (!finished) push(new Error('the JSON reading thread stopped'));
  });
  try {
    for (;;) {
      const release = await parsePlace();
      try {
        thread.postMessage('more');
        while (!answers.length) await new Promise<void>((resolve) => (wake = resolve));
      } finally {
        release();
      }
      const answer = answers.shift()!;
      if (answer instanceof Error) throw answer;
      for (const v of answer.values) yield v;
      if (answer.error?.kind === 'too-large') throw new ConversationTooLarge();
      if (answer.error?.kind === 'not-utf8') throw new NotUtf8();
      if (answer.error) throw new Error(answer.error.message);
      if (answer.done) return;
    }
  } finally {
    await thread.terminate();
  }
}
