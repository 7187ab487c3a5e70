import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { migrate } from '../../src/db/migrate.ts';
import type { Database, Db, Dialect } from '../../src/db/schema.ts';
import { createScratchDatabase } from '../../src/db/scratch-database.ts';
import { createDeps, type Deps } from '../../src/deps.ts';
import { createAccount } from '../../src/features/accounts/accounts.service.ts';
import type { Actor } from '../../src/features/api-keys/scopes.ts';
import { SCOPES } from '../../src/features/api-keys/scopes.ts';
import { randomBase62 } from '../../src/lib/ids.ts';
import { createLogger } from '../../src/lib/logger.ts';

export interface BenchDatabase {
  db: Db;
  dialect: Dialect;
  /** What the SQLite connection has: sqlite-vec loaded or not. */
  vectorExtension: string;
  close(): Promise<void>;
}

/**
 * A fresh, migrated database for a benchmark: a temporary SQLite file opened as the server opens it (every
 * statement in a thread, two read-only connections beside the writer, sqlite-vec loaded; src/db/connect.ts), or a
 * new PostgreSQL database on BENCH_DATABASE_URL / TEST_DATABASE_URL, dropped afterwards. BENCH_VECTOR_EXTENSION=off
 * opens SQLite on one synchronous connection without sqlite-vec (the server's fallback when the extension cannot
 * be loaded: the `exact` vector store).
 */
export async function openBenchDatabase(dialect: Dialect): Promise<BenchDatabase> {
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-bench-'));
    const file = path.join(dir, 'bench.sqlite');
    const removeDir = () => fs.rmSync(dir, { recursive: true, force: true });
    if (process.env.BENCH_VECTOR_EXTENSION === 'off') {
      const sqlite = new SQLite(file);
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma('foreign_keys = ON');
      sqlite.pragma('synchronous = NORMAL');
      const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
      await migrate(db, 'sqlite');
      return {
        db,
        dialect,
        vectorExtension: 'none (BENCH_VECTOR_EXTENSION=off)',
        close: async () => {
          await db.destroy();
          removeDir();
        },
      };
    }
    const handle = openDatabase({ dialect: 'sqlite', file });
    await migrate(handle.db, 'sqlite');
    const vec = await sql<{ v: string }>`SELECT vec_version() AS v`
      .execute(handle.db)
      .then(() => 'sqlite-vec')
      .catch((err: unknown) => `none (${err instanceof Error ? err.message : String(err)})`);
    return {
      db: handle.db,
      dialect,
      vectorExtension: vec,
      close: async () => {
        await handle.close();
        removeDir();
      },
    };
  }
  const adminUrl =
    process.env.BENCH_DATABASE_URL ??
    process.env.TEST_DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/postgres';
  const scratch = await createScratchDatabase(adminUrl, 'minutes_bench');
  const handle = openDatabase({ dialect: 'postgres', url: scratch.url }, { poolSize: 4 });
  await migrate(handle.db, 'postgres');
  return {
    db: handle.db,
    dialect,
    vectorExtension: 'n/a',
    close: async () => {
      await handle.close();
      await scratch.drop();
    },
  };
}

/** Deps as main.ts builds them (worker off, logs silent unless BENCH_LOG_LEVEL is set). */
export function benchDeps(
  database: Pick<BenchDatabase, 'db' | 'dialect'>,
  env: Record<string, string> = {},
): Deps {
  const config = loadConfig({ WORKER: 'false', RATE_LIMIT_PER_MINUTE: '0', ...env });
  return createDeps(config, {
    database,
    logger: createLogger((process.env.BENCH_LOG_LEVEL as 'info' | undefined) ?? 'silent'),
  });
}

/** An account and a live actor with every scope. */
export async function benchActor(database: Pick<BenchDatabase, 'db' | 'dialect'>): Promise<Actor> {
  const account = await createAccount(benchDeps(database), {
    email: `bench-${randomBase62(8).toLowerCase()}@example.com`,
  });
  return { accountId: account.id, mode: 'live', scopes: new Set(SCOPES), keyId: 'key_bench' };
}

/** p-th percentile (0..100) of a list of numbers. */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
