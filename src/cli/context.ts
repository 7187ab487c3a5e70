import { type Config, loadConfig } from '../config.ts';
import { openDatabase } from '../db/connect.ts';
import { migrate } from '../db/migrate.ts';
import type { Db, Dialect } from '../db/schema.ts';

/** A mistake in how a command was called; printed as one line, exit status 1. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface CommandContext {
  config: Config;
  db: Db;
  dialect: Dialect;
}

/**
 * Runs a command against the configured database (DATA_DIR / DATABASE_URL), migrated first so that a command
 * works on a fresh data directory, and closes it afterwards whatever happens.
 */
export async function withDatabase<T>(run: (ctx: CommandContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = openDatabase(config.database, { poolSize: 2 });
  try {
    await migrate(database.db, database.dialect);
    return await run({ config, db: database.db, dialect: database.dialect });
  } finally {
    await database.close();
  }
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
