import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.ts';
import type { Database } from '../../src/db/schema.ts';

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
});
