import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { spaceOf } from '../../lib/space.ts';
import { nowIso, toIso } from '../../lib/time.ts';
import type { Actor } from '../api-keys/scopes.ts';
import type { UploadedFile } from '../recordings/multipart-upload.ts';
import { importExport } from './import-export.service.ts';
import { EXPORT_READ_LIMITS } from './import-limits.ts';
import { type FileTally, type ImportRow, importRunsRepo } from './import-runs.repo.ts';
import { countZipExportFiles, type ExportFile, readZipExport } from './read-export.ts';

export const IMPORT_JOB = 'import.run';

/** What GET /v1/imports/:id answers. */
export interface ImportView {
  id: string;
  status: 'running' | 'completed' | 'failed';
  source: string | null;
  total: number;
  imported: number;
  skipped: number;
  failed: number;
  errors: { item: string; message: string }[];
  created_at: string;
  finished_at?: string;
}

/** How much one job of an import does before it lets other jobs (other accounts') run: files, milliseconds. */
export interface StepBudget {
  files: number;
  ms: number;
}

export const IMPORT_STEP_BUDGET: StepBudget = { files: 200, ms: 5_000 };

/** ZIP (local header or empty archive) or JSON (an object or array, after a byte order mark and blanks). */
async function kindOf(file: string): Promise<'zip' | 'json' | undefined> {
  const handle = await fsp.open(file, 'r');
  try {
    const head = Buffer.alloc(64);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const bytes = head.subarray(0, bytesRead);
    if (bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5)) return 'zip';
    const text = bytes
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimStart();
    return text.startsWith('{') || text.startsWith('[') ? 'json' : undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Starts an import of an uploaded export (a ZIP or a JSON file): keeps the file under DATA_DIR, and writes the
 * import and its first job in one transaction, so an accepted import always runs. A file that is neither ZIP
 * nor JSON is refused here with a 400.
 */
export async function startImport(
  deps: Deps,
  actor: Actor,
  file: UploadedFile,
  options: { me?: string | undefined } = {},
): Promise<ImportView> {
  const kind = await kindOf(file.path);
  if (!kind) {
    throw new AppError(
      'parameter_invalid',
      'The file is neither a ZIP archive nor a JSON export: send a Limitless export ZIP, an Omi export (JSON) or a Minutes account export (ZIP).',
      { param: 'file' },
    );
  }
  const id = newId('import');
  const dir = path.join(deps.config.dataDir, 'imports');
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  const kept = path.join(dir, `${id}.${kind}`);
  await fsp.rename(file.path, kept);
  const now = nowIso();
  const space = spaceOf(actor);
  const row: ImportRow = {
    id,
    account_id: space.accountId,
    mode: space.mode,
    status: 'running',
    source: null,
    filename: file.filename ?? `upload.${kind}`,
    file_kind: kind,
    file_path: kept,
    me: options.me ?? null,
    total: 0,
    imported: 0,
    skipped: 0,
    failed: 0,
    files_done: 0,
    step: 0,
    created_at: now,
    updated_at: now,
    finished_at: null,
  };
  try {
    await deps.db.transaction().execute(async (trx) => {
      await importRunsRepo.insert(trx, row);
      await enqueueStep(deps, trx, row, 0);
    });
  } catch (err) {
    await fsp.rm(kept, { force: true });
    throw err;
  }
  deps.wakeWorker();
  return toView(row, []);
}

/** The import of the caller's space with that id (404 for another account's or the other mode's). */
export async function getImport(deps: Deps, actor: Actor, id: string): Promise<ImportView> {
  const row = await importRunsRepo.inSpace(deps.db, spaceOf(actor), id);
  if (!row) throw notFound('import', id);
  return toView(row, await importRunsRepo.errorsOf(deps.db, id));
}

function toView(row: ImportRow, errors: { item: string; message: string }[]): ImportView {
  return {
    id: row.id,
    status: row.status,
    source: row.source,
    total: row.total,
    imported: row.imported,
    skipped: row.skipped,
    failed: row.failed,
    errors,
    created_at: row.created_at,
    ...(row.finished_at ? { finished_at: row.finished_at } : {}),
  };
}

/**
 * The next step is queued at the time the current one started (`runAt`), so it comes before the notes that step
 * stored (the queue takes an account's jobs oldest first) but after what was queued before it: the import stores
 * ahead while other lanes process its notes, instead of waiting each time for the notes it has just queued.
 */
function enqueueStep(deps: Deps, db: Db, row: ImportRow, step: number, runAt?: string) {
  return enqueueJob(db, {
    accountId: row.account_id,
    mode: row.mode,
    type: IMPORT_JOB,
    payload: { import_id: row.id, step },
    maxAttempts: deps.config.worker.maxAttempts,
    ...(runAt ? { runAt } : {}),
  });
}

/**
 * The export's files after the first `skip`, in a fixed order (so a resumed import counts the same files as
 * done); the skipped ones are not read.
 */
async function* exportFiles(row: ImportRow, skip: number): AsyncGenerator<ExportFile> {
  if (row.file_kind === 'json') {
    if (skip === 0)
      yield { name: row.filename, path: row.file_path, maxBytes: EXPORT_READ_LIMITS.maxEntryBytes };
    return;
  }
  // The archive itself is named by the file the client sent, not by where it is kept.
  const kept = path.basename(row.file_path);
  for await (const file of readZipExport(row.file_path, EXPORT_READ_LIMITS, skip))
    yield file.name === kept ? { ...file, name: row.filename } : file;
}

/** How many files of the export will be read: the first estimate of `total`, refined file by file. */
function countFiles(row: ImportRow): Promise<number> {
  return row.file_kind === 'json' ? Promise.resolve(1) : countZipExportFiles(row.file_path);
}

/**
 * Runs one step of an import: the files after those already counted, until the budget is spent, then either
 * the next step's job or the end. Each note is stored by importNote (its source and source id unique per
 * space), each file's counts in one transaction with the files done: a killed step is run again from the
 * first file not counted, and the notes it had stored are found, not stored twice. A job of a step the import
 * has left (a stale retry) does nothing.
 */
export async function runImportStep(
  deps: Deps,
  payload: { import_id: string; step: number },
  budget: StepBudget = IMPORT_STEP_BUDGET,
): Promise<void> {
  let row = await importRunsRepo.byId(deps.db, payload.import_id);
  if (row?.status !== 'running' || row.step !== payload.step) return;
  if (row.files_done === 0 && row.total === 0) {
    const total = await countFiles(row);
    await deps.db.updateTable('imports').set({ total }).where('id', '=', row.id).execute();
    row = { ...row, total };
  }
  const actor: Actor = {
    accountId: row.account_id,
    mode: row.mode,
    scopes: new Set(['notes:write']),
    keyId: '',
  };
  const started = Date.now();
  let done = 0;
  let fatal = false;
  for await (const file of exportFiles(row, row.files_done)) {
    if (done >= budget.files || Date.now() - started >= budget.ms) {
      const next = row;
      const advanced = await deps.db.transaction().execute(async (trx) => {
        if (!(await importRunsRepo.advance(trx, next, {}, nowIso()))) return false;
        await enqueueStep(deps, trx, next, next.step + 1, toIso(started));
        return true;
      });
      if (advanced) deps.wakeWorker();
      return;
    }
    const tally = await importFile(deps, actor, row, file);
    fatal = tally.fatal;
    if (!(await importRunsRepo.countFile(deps.db, row, tally, nowIso()))) return;
    done += 1;
    if (fatal) break;
  }
  const last = row;
  await deps.db
    .transaction()
    .execute((trx) => importRunsRepo.finish(trx, last, fatal ? 'failed' : 'completed', nowIso()));
  await fsp.rm(row.file_path, { force: true });
}

/**
 * Imports one file of the export and tallies it. A note file of a Minutes export from the other data space is
 * not imported: a key writes only into its own mode.
 */
async function importFile(
  deps: Deps,
  actor: Actor,
  row: ImportRow,
  file: ExportFile,
): Promise<FileTally & { fatal: boolean }> {
  const tally: FileTally & { fatal: boolean } = {
    total: -1,
    imported: 0,
    skipped: 0,
    failed: 0,
    source: null,
    errors: [],
    fatal: false,
  };
  if ('bytes' in file && file.mode && file.mode !== row.mode) {
    tally.total += 1;
    tally.failed += 1;
    tally.errors.push({
      item: file.name,
      message: `a note of the export's ${file.mode} data space: import it with a ${file.mode} key`,
    });
    return tally;
  }
  async function* one() {
    yield 'bytes' in file ? { name: file.name, bytes: file.bytes, sibling: file.sibling } : file;
  }
  const outcomes = await importExport(deps, actor, one(), { me: row.me ?? undefined });
  for (const outcome of outcomes) {
    tally.total += 1;
    if (outcome.outcome === 'failed') {
      tally.failed += 1;
      tally.errors.push({ item: outcome.item, message: outcome.error });
      // The archive as a whole (not one of its files), or a Minutes export newer than this version: the end.
      if (outcome.item === row.filename || /(^|\/)manifest\.json$/.test(outcome.item)) tally.fatal = true;
    } else {
      tally.source ??= outcome.source;
      if (outcome.outcome === 'imported') tally.imported += 1;
      else tally.skipped += 1;
    }
  }
  return tally;
}

/** Ends an import whose job failed for good, naming the export, and removes its file. */
export async function failImport(db: Db, importId: string, error: string): Promise<void> {
  const row = await importRunsRepo.byId(db, importId);
  if (row?.status !== 'running') return;
  await importRunsRepo.finish(db, row, 'failed', nowIso(), {
    item: row.filename,
    message: `the import stopped: ${error}`,
  });
  await fsp.rm(row.file_path, { force: true });
}
