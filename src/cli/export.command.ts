import fsp from 'node:fs/promises';
import path from 'node:path';
import { type Command, Option } from 'commander';
import type { Mode } from '../db/schema.ts';
import type { Deps } from '../deps.ts';
import { resolveAccount } from '../features/accounts/accounts.service.ts';
import { type Actor, SCOPES } from '../features/api-keys/scopes.ts';
import { exportAccount } from '../features/imports/export-account.service.ts';
import { exportableNoteIds, exportNote } from '../features/notes/export/export.service.ts';
import { EXPORT_FORMATS, type ExportFormat } from '../features/notes/export/export-formats.ts';
import { parseRangeBound } from '../lib/time.ts';
import { print, printJson, UsageError, withDatabase } from './context.ts';
import { stderrProgressBar } from './stderr-progress-bar.ts';

export interface ExportOptions {
  account?: string;
  mode: Mode;
  format: ExportFormat;
  from?: string;
  to?: string;
  tag?: string;
  /** Called after each file (drives the progress bar). */
  onFile?: (done: number, total: number, file: string) => void;
}

export interface ExportedNote {
  note_id: string;
  file: string;
}

/** `minutes export <dir>`: every note of an account (or those in a date range / with a tag) as files. */
export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description(
      'export the notes of an account as files in DIR, one per note, named "YYYY-MM-DD Title.<ext>" ' +
        '(Obsidian-friendly): Markdown with YAML front matter by default, or txt, srt, vtt, json',
    )
    .argument('<dir>', 'the folder to write to (created if missing; files of the same name are replaced)')
    .addOption(new Option('--format <format>', 'the file format').choices([...EXPORT_FORMATS]).default('md'))
    .option('--from <date>', 'only notes created at or after this date (YYYY-MM-DD or ISO 8601 date-time)')
    .option('--to <date>', 'only notes created at or before this date (a bare date: through that day)')
    .option('--tag <tag>', 'only notes with this tag (case-insensitive)')
    .option('--account <email>', 'the account (default: the owner account of the first start)')
    .addOption(
      new Option('--mode <mode>', 'the data space to export').choices(['live', 'test']).default('live'),
    )
    .option('--json', 'print the exported files as JSON')
    .option(
      '--all',
      'a lossless account export instead (both data spaces, every field, JSON per note, its audio and a manifest): ' +
        'the way to back up an account or move it to another instance with `minutes import DIR`',
    )
    .action(
      async (
        dir: string,
        opts: {
          format: ExportFormat;
          from?: string;
          to?: string;
          tag?: string;
          account?: string;
          mode: Mode;
          json?: boolean;
          all?: boolean;
        },
      ) => {
        if (opts.all) {
          const manifest = await withDatabase((ctx) => exportWholeAccount(ctx, dir, opts.account));
          if (opts.json) printJson(manifest);
          else {
            const n = manifest.spaces.reduce((sum, s) => sum + s.notes, 0);
            print(
              `Exported ${n} note${n === 1 ? '' : 's'} (format version ${manifest.version}) to ${path.resolve(dir)}.`,
            );
          }
          return;
        }
        const bound = (value: string | undefined, edge: 'from' | 'to') => {
          if (value === undefined) return undefined;
          const parsed = parseRangeBound(value.trim(), edge);
          if (!parsed) {
            throw new UsageError(
              `Invalid --${edge} '${value}': use a date (2026-01-05) or a date-time with a time zone (2026-01-05T09:00:00Z).`,
            );
          }
          return parsed;
        };
        const from = bound(opts.from, 'from');
        const to = bound(opts.to, 'to');
        const bar = progressBar();
        const results = await withDatabase((ctx) =>
          exportNotes(ctx, dir, {
            account: opts.account,
            mode: opts.mode,
            format: opts.format,
            from,
            to,
            tag: opts.tag?.trim() || undefined,
            onFile: bar.update,
          }),
        ).finally(() => bar.stop());
        if (opts.json) printJson(results);
        else
          print(`Exported ${results.length} note${results.length === 1 ? '' : 's'} to ${path.resolve(dir)}.`);
      },
    );
}

/**
 * Writes the account's notes matching the filters into `dir`, newest first, one file each, named
 * `YYYY-MM-DD Title.<ext>`. Two notes with the same name: the later one's file name ends with the end of its
 * id (`… (Rn6W2k).md`), so names are stable across runs. Returns the files written, in that order.
 */
export async function exportNotes(ctx: Deps, dir: string, options: ExportOptions): Promise<ExportedNote[]> {
  const account = await resolveAccount(ctx, options.account);
  const actor: Actor = { accountId: account.id, mode: options.mode, scopes: new Set(SCOPES), keyId: 'cli' };
  const target = path.resolve(dir);
  await fsp.mkdir(target, { recursive: true, mode: 0o700 });
  const used = new Set<string>();
  const results: ExportedNote[] = [];
  for await (const { id, total } of exportableNoteIds(ctx, actor, options)) {
    const file = await exportNote(ctx, actor, { id, format: options.format }).catch((err: unknown) => {
      // Deleted since it was listed: nothing to write.
      if ((err as { code?: string }).code === 'resource_not_found') return undefined;
      throw err;
    });
    if (!file) continue;
    let name = file.fileName;
    // Case-insensitive, as on macOS and Windows file systems.
    if (used.has(name.toLowerCase())) {
      const ext = path.extname(name);
      name = `${name.slice(0, -ext.length)} (${id.slice(-6)})${ext}`;
    }
    used.add(name.toLowerCase());
    // Notes are private: owner-only, like DATA_DIR (chmod too, for a file that existed with wider rights).
    await fsp.writeFile(path.join(target, name), file.body, { encoding: 'utf8', mode: 0o600 });
    await fsp.chmod(path.join(target, name), 0o600);
    results.push({ note_id: id, file: name });
    options.onFile?.(results.length, total, name);
  }
  return results;
}

/** `export --all`: the account's lossless export, with a count of notes written on a terminal. */
export async function exportWholeAccount(ctx: Deps, dir: string, account?: string) {
  const { id } = await resolveAccount(ctx, account);
  const tty = process.stderr.isTTY === true;
  const manifest = await exportAccount(ctx, path.resolve(dir), {
    accountId: id,
    onNote: (n) => {
      if (tty && n % 100 === 0) process.stderr.write(`\rexported ${n} notes`);
    },
  });
  if (tty) process.stderr.write('\n');
  return manifest;
}

/** A progress bar on stderr when it is a terminal; nothing otherwise (scripts read the summary on stdout). */
function progressBar() {
  const tty = process.stderr.isTTY === true;
  const bar = stderrProgressBar('exporting [{bar}] {value}/{total} {file}');
  let started = false;
  return {
    update: (done: number, total: number, file: string) => {
      if (!tty) return;
      if (!started) {
        bar.start(total, 0, { file: '' });
        started = true;
      }
      bar.setTotal(Math.max(total, done));
      bar.update(done, { file });
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}
