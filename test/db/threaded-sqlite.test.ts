import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, type Kysely, Kysely as KyselyClass, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.ts';
import { createThreadedSqliteDialect } from '../../src/db/sqlite/threaded-sqlite-dialect.ts';

/**
 * SQLite's statements run in threads (src/db/sqlite/): one connection writes, read-only ones answer SELECTs.
 * Tested on a real file through the same openDatabase the server uses, with a scratch table of its own.
 */
describe('SQLite in threads', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-threaded-'));
  const handle = openDatabase({ dialect: 'sqlite', file: path.join(dir, 'db.sqlite') });
  // A table of the test's own, outside the service's schema.
  const db = handle.db as unknown as Kysely<{ t: { id: number; name: string; data: Buffer | null } }>;

  beforeAll(async () => {
    await sql`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, data BLOB)`.execute(db);
  });
  afterAll(async () => {
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A statement that keeps its thread busy for a while (a recursive count). */
  const slowCount = (n: number) =>
    sql<{
      n: number;
    }>`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${n}) SELECT count(*) AS n FROM c`;

  it('the event loop turns while a long statement runs', async () => {
    let turns = 0;
    const ticker = setInterval(() => turns++, 1);
    try {
      const counted = slowCount(3_000_000).execute(db);
      // With a synchronous driver the statement would hold this thread: the interval could not fire before it ends.
      const first = await Promise.race([
        counted.then(() => 'statement' as const),
        new Promise<'timer'>((resolve) => setTimeout(() => resolve('timer'), 0)),
      ]);
      expect(first).toBe('timer');
      expect((await counted).rows[0]!.n).toBe(3_000_000);
      expect(turns).toBeGreaterThan(0);
    } finally {
      clearInterval(ticker);
    }
  });

  it('reads go on while a transaction holds the writer, and see only what is committed', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inside!: () => void;
    const started = new Promise<void>((resolve) => {
      inside = resolve;
    });
    const transaction = db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ id: 1, name: 'uncommitted', data: null }).execute();
      // Its own reads see its own write.
      expect(await trx.selectFrom('t').select('name').where('id', '=', 1).executeTakeFirst()).toEqual({
        name: 'uncommitted',
      });
      inside();
      await held;
    });
    await started;
    // Outside the transaction, while it is open: answered, from the last committed state.
    expect(await db.selectFrom('t').selectAll().where('id', '=', 1).execute()).toEqual([]);
    release();
    await transaction;
    expect(await db.selectFrom('t').select('name').where('id', '=', 1).execute()).toEqual([
      { name: 'uncommitted' },
    ]);
  });

  it('writes take turns at the writer, in the order they came, and a rolled back transaction leaves nothing', async () => {
    const order: string[] = [];
    const first = db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ id: 10, name: 'first', data: null }).execute();
      await new Promise((resolve) => setTimeout(resolve, 50));
      order.push('first');
    });
    const second = db
      .insertInto('t')
      .values({ id: 11, name: 'second', data: null })
      .execute()
      .then(() => order.push('second'));
    const failed = db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('t').values({ id: 12, name: 'rolled back', data: null }).execute();
        throw new Error('abort');
      })
      .catch((err: Error) => err.message);
    await Promise.all([first, second]);
    expect(await failed).toBe('abort');
    expect(order).toEqual(['first', 'second']);
    expect(
      await db.selectFrom('t').select('id').where('id', 'in', [10, 11, 12]).orderBy('id').execute(),
    ).toEqual([{ id: 10 }, { id: 11 }]);
  });

  it('BLOBs come back as Buffers, BigInt parameters bind as integers, errors keep their SQLite code', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    await db.insertInto('t').values({ id: 20, name: 'blob', data: bytes }).execute();
    const row = await db.selectFrom('t').select('data').where('id', '=', 20).executeTakeFirstOrThrow();
    expect(Buffer.isBuffer(row.data)).toBe(true);
    expect(row.data).toEqual(bytes);
    const byBigInt = await sql<{ name: string }>`SELECT name FROM t WHERE id = ${20n}`.execute(db);
    expect(byBigInt.rows).toEqual([{ name: 'blob' }]);

    const duplicate = await db
      .insertInto('t')
      .values({ id: 21, name: 'blob', data: null })
      .execute()
      .catch((err: unknown) => err);
    expect(duplicate).toBeInstanceOf(Error);
    expect((duplicate as { code?: string }).code).toBe('SQLITE_CONSTRAINT_UNIQUE');
    // The writer goes on after an error.
    await db.insertInto('t').values({ id: 22, name: 'after the error', data: null }).execute();
    const result = await db.deleteFrom('t').where('id', '=', 22).executeTakeFirst();
    expect(result.numDeletedRows).toBe(1n);
  });

  it('a closed database answers every statement with an error and does not open the file again', async () => {
    const file = path.join(dir, 'closed.sqlite');
    const other = openDatabase({ dialect: 'sqlite', file });
    await sql`SELECT 1`.execute(other.db);
    await other.close();
    await expect(sql`SELECT 1`.execute(other.db)).rejects.toThrow();
  });

  const dialectOn = (file: string) =>
    createThreadedSqliteDialect({
      file,
      betterSqlitePath: createRequire(import.meta.url).resolve('better-sqlite3'),
      writerPragmas: ['busy_timeout = 5000', 'journal_mode = WAL', 'foreign_keys = ON'],
      readerPragmas: ['busy_timeout = 5000'],
      readers: 2,
    });
  const rowsIn = (file: string) => {
    const check = new SQLite(file, { readonly: true });
    try {
      return check.prepare('SELECT x FROM t ORDER BY x').all();
    } finally {
      check.close();
    }
  };

  it('a writer thread that stops mid-transaction fails the rest of it: nothing of it is kept', async () => {
    const file = path.join(dir, 'crash.sqlite');
    const driver = dialectOn(file).createDriver();
    await driver.init();
    const lease = await driver.acquireConnection();
    await lease.executeQuery(CompiledQuery.raw('CREATE TABLE t (x INTEGER)'));
    await driver.beginTransaction(lease, {});
    await lease.executeQuery(CompiledQuery.raw('INSERT INTO t VALUES (1)'));
    // The thread dies (out of memory, a crash): its connection and the open transaction are gone.
    await (
      driver as unknown as { writer: { thread: { worker: { terminate(): Promise<number> } } } }
    ).writer.thread.worker.terminate();
    await expect(lease.executeQuery(CompiledQuery.raw('INSERT INTO t VALUES (2)'))).rejects.toThrow(
      /transaction was rolled back/,
    );
    await expect(driver.commitTransaction(lease)).rejects.toThrow(/transaction was rolled back/);
    await driver.rollbackTransaction(lease); // what Kysely does next: nothing left to do
    // The next statement outside a transaction gets a new thread.
    await lease.executeQuery(CompiledQuery.raw('INSERT INTO t VALUES (3)'));
    await driver.destroy();
    expect(rowsIn(file)).toEqual([{ x: 3 }]);
  });

  it('a COMMIT that fails reports its own error, and the next transaction in line stays whole', async () => {
    const file = path.join(dir, 'commit-fails.sqlite');
    const kdb = new KyselyClass<Record<string, never>>({ dialect: dialectOn(file) });
    try {
      await sql`CREATE TABLE p (id INTEGER PRIMARY KEY)`.execute(kdb);
      await sql`CREATE TABLE c (id INTEGER PRIMARY KEY, p INTEGER REFERENCES p(id) DEFERRABLE INITIALLY DEFERRED)`.execute(
        kdb,
      );
      await sql`CREATE TABLE t (x INTEGER)`.execute(kdb);
      const failing = kdb
        .transaction()
        .execute(async (trx) => {
          await sql`INSERT INTO c VALUES (1, 999)`.execute(trx);
        })
        .catch((err: Error) => err.message);
      const next = kdb
        .transaction()
        .execute(async (trx) => {
          await sql`INSERT INTO t VALUES (1)`.execute(trx);
          await sql`INSERT INTO t VALUES (2)`.execute(trx);
          throw new Error('both inserts roll back');
        })
        .catch((err: Error) => err.message);
      expect(await failing).toMatch(/FOREIGN KEY constraint failed/);
      expect(await next).toBe('both inserts roll back');
      expect((await sql<{ n: number }>`SELECT count(*) AS n FROM t`.execute(kdb)).rows).toEqual([{ n: 0 }]);
    } finally {
      await kdb.destroy();
    }
  });

  it('a close lets the transaction under way finish, then never opens the file again', async () => {
    const file = path.join(dir, 'close.sqlite');
    const kdb = new KyselyClass<Record<string, never>>({ dialect: dialectOn(file) });
    await sql`CREATE TABLE t (x INTEGER)`.execute(kdb);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const transaction = kdb.transaction().execute(async (trx) => {
      await sql`INSERT INTO t VALUES (1)`.execute(trx);
      await gate;
      await sql`INSERT INTO t VALUES (2)`.execute(trx);
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const closing = kdb.destroy();
    release();
    await transaction;
    await closing;
    await expect(sql`INSERT INTO t VALUES (3)`.execute(kdb)).rejects.toThrow();
    expect(rowsIn(file)).toEqual([{ x: 1 }, { x: 2 }]);
  });
});
