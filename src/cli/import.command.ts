import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { type Command, Option } from 'commander';
import { z } from 'zod';
import type { Mode } from '../db/schema.ts';
import type { Deps } from '../deps.ts';
import { resolveAccount } from '../features/accounts/accounts.service.ts';
import { type Actor, SCOPES } from '../features/api-keys/scopes.ts';
import { type ImportItemOutcome, importExport } from '../features/imports/import-export.service.ts';
import { EXPORT_READ_LIMITS } from '../features/imports/import-limits.ts';
import type { ImportSource } from '../features/imports/imported-note.ts';
import { fetchLimitlessLifelogs, LIMITLESS_API_URL } from '../features/imports/limitless-api.ts';
import {
  countZipExportFiles,
  type ExportFile,
  isExportAudioFile,
  readExportFile,
  readZipExport,
} from '../features/imports/read-export.ts';
import { CreateNoteBody, type CreateNoteInput } from '../features/notes/notes.schema.ts';
import { toSegments } from '../features/processing/providers/openai-transcriber.ts';
import {
  createRecordingFromAudio,
  createRecordingFromTranscript,
  findRecordingByContent,
} from '../features/recordings/recordings.service.ts';
import { writeMeasured } from '../features/storage/measuring-stream.ts';
import { createTempPath, PRIVATE_FILE_MODE, removeTempFile } from '../features/storage/temp-files.ts';
import { zodIssueToError } from '../http/validation.ts';
import { runDueJobs } from '../jobs/worker.ts';
import { AppError } from '../lib/errors.ts';
import { createLogger } from '../lib/logger.ts';
import { print, printJson, UsageError, withDatabase } from './context.ts';
import { stderrProgressBar } from './stderr-progress-bar.ts';

/** Extensions taken as audio (the bytes decide the format; a file that is not audio fails with the reason). */
const AUDIO_EXTENSIONS = new Set([
  '.wav',
  '.mp3',
  '.m4a',
  '.mp4',
  '.aac',
  '.ogg',
  '.oga',
  '.opus',
  '.webm',
  '.flac',
]);
const TRANSCRIPT_EXTENSIONS = new Set(['.txt', '.vtt', '.srt', '.json']);

export type ImportOutcome =
  | { file: string; outcome: 'imported'; kind: 'audio' | 'transcript'; recording_id: string; note_id: string }
  | { file: string; outcome: 'skipped'; reason: 'already imported'; recording_id: string; note_id: string }
  | { file: string; outcome: 'failed'; error: string };

export interface ImportOptions {
  account?: string;
  mode: Mode;
  tags?: string[];
  /** Run the processing jobs of the imported notes in this process before returning. */
  process?: boolean;
  /** Called after each file (drives the progress bar). */
  onFile?: (result: ImportOutcome, done: number, total: number) => void;
}

/** `minutes import <paths...>`: audio files and transcripts become recordings and notes. */
export function registerImportCommand(program: Command): void {
  program
    .command('import')
    .description(
      'import audio files (wav, mp3, m4a, ogg/opus, webm, flac) and transcripts (txt, vtt, srt, json) as ' +
        'recordings with their notes; directories are searched recursively, and files imported before ' +
        '(same bytes, same account and mode) are skipped',
    )
    .argument('[paths...]', 'files or directories (none with --api-key)')
    .option('--account <email>', 'the account (default: the owner account of the first start)')
    .addOption(
      new Option('--mode <mode>', 'the data space to import into').choices(['live', 'test']).default('live'),
    )
    .option('--tags <list>', 'comma-separated tags for every imported note')
    .option(
      '--process',
      'process the imported notes now, in this process, instead of by a running server or worker',
    )
    .addOption(
      new Option(
        '--from <source>',
        'read the paths as this source instead of finding it from each file: a Limitless export (ZIP or ' +
          'lifelogs/ folder of Markdown), an Omi export (JSON), a Minutes account export (minutes export --all), ' +
          'or transcripts',
      ).choices(['limitless', 'omi', 'minutes', 'transcript']),
    )
    .option('--me <name>', 'your name, for the speaker a Limitless or Omi export marks as the wearer')
    .option(
      '--api-key <key>',
      "read every lifelog from Limitless's API with this key (implies --from limitless)",
    )
    .option('--api-url <url>', "the Limitless API's address", LIMITLESS_API_URL)
    .option('--json', 'print the outcome of every file as JSON')
    .action(
      async (
        paths: string[],
        opts: {
          account?: string;
          mode: Mode;
          tags?: string;
          process?: boolean;
          json?: boolean;
          from?: ImportSource | 'transcript';
          me?: string;
          apiKey?: string;
          apiUrl: string;
        },
      ) => {
        if (opts.apiKey) {
          if (paths.length || (opts.from && opts.from !== 'limitless'))
            throw new UsageError(
              '--api-key reads from the Limitless API: give no paths, and no --from but limitless.',
            );
          await importExportsCommand(
            [],
            { ...opts, from: 'limitless' },
            fetchLimitlessLifelogs({ apiKey: opts.apiKey, baseUrl: opts.apiUrl }),
          );
          return;
        }
        if (!paths.length) throw new UsageError('Give the files or folders to import, or --api-key.');
        const found = await collectImportFiles(paths, opts.from);
        if (found.exports.length) {
          const outcomes = await importExportsCommand(found.exports, opts);
          if (!found.files.length) return;
          if (outcomes.some((o) => o.outcome === 'failed')) process.exitCode = 1;
        }
        const files = found.files;
        if (!files.length) throw new UsageError('No audio or transcript files found in the given paths.');
        const tags = opts.tags
          ?.split(',')
          .map((t) => t.trim())
          .filter(Boolean);
        const bar = progressBar(files.length);
        // The processing of imported notes logs nothing: the progress bar and the summary say what happened.
        const results = await withDatabase(
          (ctx) =>
            importFiles(ctx, files, {
              account: opts.account,
              mode: opts.mode,
              ...(tags?.length ? { tags } : {}),
              process: opts.process,
              onFile: (result, done) => bar.update(done, result),
            }),
          { logger: createLogger('silent') },
        ).finally(() => bar.stop());
        if (opts.json) printJson(results);
        else print(summarize(results));
        for (const r of results)
          if (r.outcome === 'failed') process.stderr.write(`failed: ${r.file}: ${r.error}\n`);
        if (results.some((r) => r.outcome === 'failed')) process.exitCode = 1;
      },
    );
}

/**
 * The paths split into exports (a ZIP, a Limitless lifelog, an Omi or Minutes JSON export: read by
 * importExport) and audio or transcript files (importFiles). A JSON file is an export when its content says so
 * (or `--from` does), else a transcript.
 */
export async function collectImportFiles(
  paths: readonly string[],
  from?: ImportSource | 'transcript',
): Promise<{ exports: string[]; files: string[] }> {
  const exports = new Set<string>();
  const files = new Set<string>();
  for (const given of paths) {
    const absolute = path.resolve(given);
    const stat = await fsp.stat(absolute).catch(() => undefined);
    if (!stat) throw new UsageError(`No such file or directory: ${given}`);
    const candidates = stat.isDirectory()
      ? ((await fsp.readdir(absolute, { recursive: true })) as string[]).map((e) => path.join(absolute, e))
      : [absolute];
    for (const file of candidates) {
      const ext = path.extname(file).toLowerCase();
      if (!['.zip', '.md', '.json'].includes(ext) || !(await fsp.stat(file)).isFile()) continue;
      if (from === 'transcript' && ext !== '.json') continue;
      if (ext === '.json' && from !== 'transcript' && (from || (await looksLikeExport(file))))
        exports.add(file);
      else if (ext !== '.json' && from !== 'transcript') exports.add(file);
    }
  }
  const rest = await collectFiles(paths).catch((err: unknown) => {
    // A path that is only an export (a ZIP, a lifelog) is not "another type" here.
    if (err instanceof UsageError && exports.size) return [];
    throw err;
  });
  for (const file of rest) {
    // A Minutes export's audio comes in with its note, not as a recording of its own.
    if (exports.size && isExportAudioFile(file.split(path.sep).join('/'))) continue;
    if (!exports.has(file)) files.add(file);
  }
  return { exports: [...exports].sort(), files: [...files].sort() };
}

/** A JSON file that is an Omi export or a note or manifest of a Minutes export, from its first 4 KiB. */
async function looksLikeExport(file: string): Promise<boolean> {
  const handle = await fsp.open(file);
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4096), 0, 4096, 0);
    const head = buffer.subarray(0, bytesRead).toString('utf8');
    return /"(transcript_segments|conversations|title_locked|minutes-account-export)"/.test(head);
  } finally {
    await handle.close();
  }
}

/** Imports the exports among the paths with a progress bar, and prints what became of every item. */
async function importExportsCommand(
  files: readonly string[],
  opts: {
    account?: string;
    mode: Mode;
    json?: boolean;
    from?: ImportSource | 'transcript';
    me?: string;
    process?: boolean;
  },
  source: AsyncIterable<ExportFile> = readExports(files),
): Promise<ImportItemOutcome[]> {
  // A bar over the export's files (a ZIP's are counted from its directory); the items they hold are counted as
  // they come. Lifelogs read from the Limitless API have no known total: a running count.
  const bar = files.length ? exportBar(await countExportFiles(files)) : runningCount();
  let done = 0;
  async function* counted() {
    for await (const file of source) {
      yield file;
      bar.fileDone();
    }
  }
  const outcomes = await withDatabase(
    async (ctx) => {
      const account = await resolveAccount(ctx, opts.account);
      const actor: Actor = { accountId: account.id, mode: opts.mode, scopes: new Set(SCOPES), keyId: 'cli' };
      const result = await importExport(ctx, actor, counted(), {
        source: opts.from === 'transcript' ? undefined : opts.from,
        me: opts.me,
        onItem: (outcome) => {
          done += 1;
          bar.update(done, outcome);
        },
      });
      // The processing bar follows the import's, never both at once.
      bar.stop();
      if (opts.process)
        await processImported(
          ctx,
          result.flatMap((r) => (r.outcome === 'imported' ? [r] : [])),
        );
      return result;
    },
    { logger: createLogger('silent') },
  ).finally(() => bar.stop());
  if (opts.json) printJson(outcomes);
  else {
    const count = (o: string) => outcomes.filter((r) => r.outcome === o).length;
    print(
      `Imported ${count('imported')} note${count('imported') === 1 ? '' : 's'}; skipped ${count('skipped')} already imported; ${count('failed')} failed.`,
    );
  }
  for (const r of outcomes)
    if (r.outcome === 'failed') process.stderr.write(`failed: ${r.item}: ${r.error}\n`);
  if (outcomes.some((r) => r.outcome === 'failed')) process.exitCode = 1;
  return outcomes;
}

/** How many files the exports hold: a ZIP's Markdown and JSON entries, one for any other file. */
async function countExportFiles(files: readonly string[]): Promise<number> {
  let total = 0;
  for (const file of files)
    total += file.toLowerCase().endsWith('.zip') ? await countZipExportFiles(file) : 1;
  return total;
}

interface ExportProgress {
  update(items: number, outcome: ImportItemOutcome): void;
  fileDone(): void;
  stop(): void;
}

/** A progress bar over the export's files on stderr when it is a terminal, else one line per item. */
function exportBar(totalFiles: number): ExportProgress {
  const tty = process.stderr.isTTY === true;
  const bar = stderrProgressBar('importing [{bar}] {value}/{total} files, {items} items {status}');
  let files = 0;
  let items = 0;
  let status = '';
  let running = tty;
  if (tty) bar.start(totalFiles, 0, { items: 0, status: '' });
  return {
    update(n, outcome) {
      items = n;
      status = `(${outcome.outcome}: ${path.basename(outcome.item)})`;
      if (running) bar.update(files, { items, status });
      else if (!tty) process.stderr.write(`${n} ${outcome.outcome}: ${outcome.item}\n`);
    },
    fileDone() {
      files += 1;
      if (running) bar.update(Math.min(files, totalFiles), { items, status });
    },
    stop() {
      if (running) bar.stop();
      running = false;
    },
  };
}

/** The items imported so far, for a source whose size is not known in advance. */
function runningCount(): ExportProgress {
  const tty = process.stderr.isTTY === true;
  let shown = false;
  let stopped = false;
  return {
    update(n, outcome) {
      shown = true;
      if (tty)
        process.stderr.write(
          `\rimporting: ${n} items (${outcome.outcome}: ${path.basename(outcome.item)})\u001b[K`,
        );
      else process.stderr.write(`${n} ${outcome.outcome}: ${outcome.item}\n`);
    },
    fileDone() {},
    stop() {
      if (tty && shown && !stopped) process.stderr.write('\n');
      stopped = true;
    },
  };
}

async function* readExports(files: readonly string[]) {
  for (const file of files) {
    if (file.toLowerCase().endsWith('.zip')) yield* readZipExport(file, EXPORT_READ_LIMITS);
    else yield* readExportFile(file, EXPORT_READ_LIMITS);
  }
}

/** Every importable file under the paths, sorted, without duplicates; a named file of another type is an error. */
export async function collectFiles(paths: readonly string[]): Promise<string[]> {
  const found = new Set<string>();
  for (const given of paths) {
    const absolute = path.resolve(given);
    const stat = await fsp.stat(absolute).catch(() => undefined);
    if (!stat) throw new UsageError(`No such file or directory: ${given}`);
    if (stat.isDirectory()) {
      for (const entry of (await fsp.readdir(absolute, { recursive: true })) as string[]) {
        const file = path.join(absolute, entry);
        if (kindOf(file) && (await fsp.stat(file)).isFile()) found.add(file);
      }
    } else if (kindOf(absolute)) {
      found.add(absolute);
    } else {
      throw new UsageError(
        `Cannot import ${given}: not an audio file (${[...AUDIO_EXTENSIONS].join(', ')}) or a transcript (${[...TRANSCRIPT_EXTENSIONS].join(', ')}).`,
      );
    }
  }
  return [...found].sort();
}

function kindOf(file: string): 'audio' | 'transcript' | undefined {
  const ext = path.extname(file).toLowerCase();
  if (AUDIO_EXTENSIONS.has(ext)) return 'audio';
  if (TRANSCRIPT_EXTENSIONS.has(ext)) return 'transcript';
  return undefined;
}

/**
 * Imports the files one by one into the account's data space, as the API would ingest them (same checks, same
 * events, same processing job). A file whose bytes a recording of this space already holds is skipped; a file
 * that fails (not audio, not a transcript) is reported and the others go on.
 */
export async function importFiles(
  ctx: Deps,
  files: readonly string[],
  options: ImportOptions,
): Promise<ImportOutcome[]> {
  const account = await resolveAccount(ctx, options.account);
  const actor: Actor = {
    accountId: account.id,
    mode: options.mode,
    scopes: new Set(SCOPES),
    keyId: 'cli',
  };
  const results: ImportOutcome[] = [];
  for (const file of files) {
    let result: ImportOutcome;
    try {
      result = await importOne(ctx, actor, file, options.tags);
    } catch (err) {
      if (!(err instanceof AppError || err instanceof ImportError)) throw err;
      result = { file, outcome: 'failed', error: err.message };
    }
    results.push(result);
    options.onFile?.(result, results.length, files.length);
  }
  if (options.process) await processImported(ctx, results);
  return results;
}

class ImportError extends Error {}

async function importOne(
  ctx: Deps,
  actor: Actor,
  file: string,
  tags: string[] | undefined,
): Promise<ImportOutcome> {
  const stat = await fsp.stat(file);
  // The file's modification time is the best guess of when it was recorded.
  const createdAt = stat.mtime.toISOString();
  if (kindOf(file) === 'audio') {
    if (stat.size > ctx.config.maxUploadBytes) {
      throw new ImportError(`larger than MAX_UPLOAD_BYTES (${ctx.config.maxUploadBytes} bytes)`);
    }
    const sha256 = await hashFile(file);
    const existing = await findRecordingByContent(ctx, actor, sha256);
    if (existing?.note_id) return alreadyImported(file, existing.id, existing.note_id);
    // Copied under DATA_DIR, from where storage moves it: the original stays where it is.
    const temp = await createTempPath(ctx.config.dataDir);
    try {
      // Settles only once the copy is closed, so the removal below cannot be overtaken by its opening.
      await writeMeasured(fs.createReadStream(file), temp, {
        flags: 'wx',
        flush: true,
        mode: PRIVATE_FILE_MODE,
      });
      const accepted = await createRecordingFromAudio(
        ctx,
        actor,
        { path: temp, size: stat.size, sha256, filename: path.basename(file) },
        { created_at: createdAt, ...(tags ? { tags } : {}) },
      );
      return { file, outcome: 'imported', kind: 'audio', ...accepted };
    } finally {
      await removeTempFile(temp);
    }
  }
  if (stat.size > ctx.config.maxTranscriptBytes) {
    throw new ImportError(`larger than MAX_TRANSCRIPT_BYTES (${ctx.config.maxTranscriptBytes} bytes)`);
  }
  const bytes = await fsp.readFile(file);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const existing = await findRecordingByContent(ctx, actor, sha256);
  if (existing?.note_id) return alreadyImported(file, existing.id, existing.note_id);
  const input = transcriptInput(file, bytes.toString('utf8'));
  const accepted = await createRecordingFromTranscript(
    ctx,
    actor,
    { created_at: createdAt, ...input, ...(tags && !input.tags ? { tags } : {}) },
    { sha256 },
  );
  return { file, outcome: 'imported', kind: 'transcript', ...accepted };
}

/** A file whose bytes this space already holds: skipped, naming what it became. */
function alreadyImported(file: string, recordingId: string, noteId: string): ImportOutcome {
  return {
    file,
    outcome: 'skipped',
    reason: 'already imported',
    recording_id: recordingId,
    note_id: noteId,
  };
}

async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** OpenAI `verbose_json` (what `whisper --output_format json` and the transcriptions API write). */
const VerboseJson = z.object({
  segments: z.array(z.object({ start: z.number(), end: z.number(), text: z.string() }).passthrough()),
});

/**
 * A transcript file as the body of POST /v1/notes. `.txt`, `.vtt`, `.srt` are the transcript text. `.json` is
 * one of: that body itself (`{transcript | segments, title?, …}`), an array of segments
 * `[{speaker, start_ms, end_ms, text}]`, or OpenAI `verbose_json` (`{segments: [{start, end, text}]}`).
 */
export function transcriptInput(file: string, text: string): CreateNoteInput {
  if (path.extname(file).toLowerCase() !== '.json') return parseBody({ transcript: text });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ImportError('not valid JSON');
  }
  if (Array.isArray(json)) return parseBody({ segments: json });
  const verbose = VerboseJson.safeParse(json);
  if (verbose.success && !('start_ms' in (verbose.data.segments[0] ?? {}))) {
    const segments = toSegments(verbose.data as Parameters<typeof toSegments>[0]);
    if (!segments.length) throw new ImportError('the transcript has no text');
    return parseBody({ segments });
  }
  return parseBody(json);
}

function parseBody(body: unknown): CreateNoteInput {
  const parsed = CreateNoteBody.safeParse(body);
  if (!parsed.success) throw zodIssueToError(parsed.error, 'file', { value: body });
  return parsed.data;
}

/** Runs due processing jobs here until every imported note is ready or failed. */
async function processImported(
  deps: Deps,
  results: readonly ({ outcome: string } & Partial<{ note_id: string }>)[],
) {
  const noteIds = results.flatMap((r) => (r.outcome === 'imported' && r.note_id ? [r.note_id] : []));
  if (!noteIds.length) return;
  const bar = progressBar(noteIds.length, 'processing');
  try {
    for (;;) {
      const pending = await deps.db
        .selectFrom('notes')
        .select('id')
        .where('id', 'in', noteIds)
        .where('status', '=', 'processing')
        .execute();
      bar.update(noteIds.length - pending.length);
      if (!pending.length) return;
      // Nothing due (a retry waits for its backoff): look again shortly.
      if ((await runDueJobs(deps)) === 0) await new Promise((r) => setTimeout(r, deps.config.worker.pollMs));
    }
  } finally {
    bar.stop();
  }
}

/** A progress bar on stderr when it is a terminal; otherwise one line per file. */
function progressBar(total: number, label = 'importing') {
  const tty = process.stderr.isTTY === true;
  const bar = stderrProgressBar(`${label} [{bar}] {value}/{total} {status}`);
  if (tty) bar.start(total, 0, { status: '' });
  return {
    update(done: number, result?: ImportOutcome) {
      const status = result ? `${result.outcome}: ${path.basename(result.file)}` : '';
      if (tty) bar.update(done, { status });
      else if (result) process.stderr.write(`${done}/${total} ${status}\n`);
    },
    stop() {
      if (tty) bar.stop();
    },
  };
}

function summarize(results: readonly ImportOutcome[]): string {
  const imported = results.filter((r) => r.outcome === 'imported');
  const audio = imported.filter((r) => r.outcome === 'imported' && r.kind === 'audio').length;
  const skipped = results.filter((r) => r.outcome === 'skipped').length;
  const failed = results.filter((r) => r.outcome === 'failed').length;
  return (
    `Imported ${imported.length} file${imported.length === 1 ? '' : 's'} ` +
    `(${audio} audio, ${imported.length - audio} transcript${imported.length - audio === 1 ? '' : 's'}); ` +
    `skipped ${skipped} already imported; ${failed} failed.`
  );
}
