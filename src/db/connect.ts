import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type PgModule from 'pg';
import type { Config } from '../config.ts';
import { loadVectorExtension } from '../features/search/sqlite-vec.ts';
import type { Database, Db, Dialect } from './schema.ts';

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  close(): Promise<void>;
}

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

/** Opens the configured database: a SQLite file (WAL, foreign keys on, secure delete) or a PostgreSQL pool. */
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
  const sqlite = new SQLite(database.file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  // Deleted content is overwritten with zeros, not left in free pages of the file (docs/decisions.md).
  sqlite.pragma('secure_delete = ON');
  // vec0 tables for vector search; without the extension search falls back to exact cosine (and says so).
  loadVectorExtension(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
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

const STATEMENT_CACHE_SIZE = 512;

/**
 * Reuses prepared statements by SQL text (least recently used first out): Kysely's SQLite driver prepares
 * every query anew, which is a measurable share of a small request. Kysely runs one query at a time on the
 * connection, so a cached statement is never in use twice; SQLite re-prepares it itself after schema changes.
 */
function withStatementCache(sqlite: SQLite.Database) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql);
      } else {
        statement = sqlite.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      return statement;
    },
  };
}
