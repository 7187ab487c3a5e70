import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import type PgModule from 'pg';
import type { Config } from '../config.ts';
import { vectorExtensionPath } from '../features/search/sqlite-vec.ts';
import type { Database, Db, Dialect } from './schema.ts';
import { createThreadedSqliteDialect } from './sqlite/threaded-sqlite-dialect.ts';

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  close(): Promise<void>;
}

/**
 * Read-only SQLite connections beside the one that writes, each in its own thread (started when reads need
 * them): two let a request's reads go on while another request's long read runs, and more gain nothing on the
 * small machines SQLite is for (PostgreSQL is the answer beyond).
 */
const SQLITE_READERS = 2;

let pgModule: typeof PgModule | undefined;

/**
 * pg, loaded when PostgreSQL is configured: loading it costs a SQLite-only process (every CLI command on a
 * laptop) some 50 ms of start. BIGINT / BIGSERIAL come back as numbers: every value we store fits in 2^53.
 */
function loadPg(): typeof PgModule {
  if (!pgModule) {
    pgModule = createRequire(import.meta.url)('pg') as typeof PgModule;
    pgModule.types.setTypeParser(20, (value) => Number(value));
  }
  return pgModule;
}

/**
 * Opens the configured database: a SQLite file (WAL, foreign keys on, secure delete; every statement in a thread,
 * see sqlite/threaded-sqlite-dialect.ts) or a PostgreSQL pool.
 */
export function openDatabase(
  database: Config['database'],
  options: { poolSize?: number } = {},
): DatabaseHandle {
  if (database.dialect === 'postgres') {
    const pool = new (loadPg().Pool)({ connectionString: database.url, max: options.poolSize ?? 10 });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  createPrivateFile(database.file);
  const vectors = vectorExtensionPath();
  const dialect = createThreadedSqliteDialect({
    file: database.file,
    betterSqlitePath: createRequire(import.meta.url).resolve('better-sqlite3'),
    // vec0 tables for vector search; without the extension search falls back to exact cosine (and says so).
    ...('path' in vectors ? { vectorExtensionPath: vectors.path } : {}),
    // busy_timeout first: the pragmas after it may wait for a lock another process holds.
    writerPragmas: [
      'busy_timeout = 5000',
      'journal_mode = WAL',
      'foreign_keys = ON',
      'synchronous = NORMAL',
      // Deleted content is overwritten with zeros, not left in free pages of the file (docs/decisions.md).
      'secure_delete = ON',
    ],
    readerPragmas: ['busy_timeout = 5000'],
    readers: SQLITE_READERS,
  });
  const db = new Kysely<Database>({ dialect });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/**
 * The database file readable by the service's user only (0600, in a 0700 folder when it creates the folder):
 * notes are private. SQLite gives `-wal` and `-shm` the database file's permissions; files of an older start
 * that were world-readable are narrowed too.
 */
function createPrivateFile(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if ((fs.statSync(f).mode & 0o077) !== 0) fs.chmodSync(f, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}
