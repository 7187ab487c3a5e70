import type { Logger } from 'pino';
import { type Config, loadConfig, settingSource } from '../config.ts';
import { migrate } from '../db/migrate.ts';
import { createDeps, type Deps } from '../deps.ts';
import { createLogger } from '../lib/logger.ts';

/** A mistake in how a command was called; printed as one line, exit status 1. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** What a command runs with: the deps of the configured database (no worker: wakeWorker is a no-op). */
export type CommandContext = Deps;

/**
 * Runs a command against the configured database (DATA_DIR / DATABASE_URL), migrated first so that a command
 * works on a fresh data directory, and closes it afterwards whatever happens. Logs go to stderr (cliLogger)
 * unless another logger is given.
 */
export async function withDatabase<T>(
  run: (ctx: CommandContext) => Promise<T>,
  options: { logger?: Logger } = {},
): Promise<T> {
  const config = loadConfig();
  const deps = createDeps(config, { poolSize: 2, logger: options.logger ?? cliLogger(config) });
  try {
    const applied = await migrate(deps.db, deps.dialect);
    // The first migration ran: this command made a new database, which a running server (with another DATA_DIR
    // or DATABASE_URL) would not see. Say so, and where the settings came from, before anything else.
    if (applied.includes(1)) process.stderr.write(newDatabaseNotice(config));
    return await run(deps);
  } finally {
    await deps.close();
  }
}

/** The warning a command prints when it created the database it is about to use. */
export function newDatabaseNotice(config: Config): string {
  const name =
    config.database.dialect === 'sqlite' && !process.env.DATABASE_URL ? 'DATA_DIR' : 'DATABASE_URL';
  const { source, file } = settingSource(name);
  const from =
    source === 'file' ? `from ${file}` : source === 'environment' ? 'from the environment' : 'the default';
  const where =
    config.database.dialect === 'sqlite'
      ? `a new, empty SQLite database at ${config.database.file}`
      : 'a new, empty schema in the PostgreSQL database of DATABASE_URL';
  return (
    `warning: created ${where} (${name}: ${from}).\n` +
    '         A running Minutes server that uses another database will not see what this command does: run it\n' +
    `         with the server's DATA_DIR / DATABASE_URL (in the environment or in the .env file both read).\n`
  );
}

/**
 * The logger of a one-shot command: stdout is for its result, so log lines (JSON) go to stderr, and only warnings
 * and errors unless LOG_LEVEL asks for debug or trace.
 */
export function cliLogger(config: Config): Logger {
  const level = config.logLevel === 'debug' || config.logLevel === 'trace' ? config.logLevel : 'warn';
  return createLogger(level, process.stderr);
}

/** Writes lines to stdout: the one place commands print results. */
export function print(...lines: string[]): void {
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A plain text table with left-aligned columns, for listings a human reads. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
