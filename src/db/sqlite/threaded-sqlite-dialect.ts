import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  RawNode,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { SqliteThread, type SqliteThreadOptions, type StatementResult } from './sqlite-thread.ts';

export interface ThreadedSqliteOptions {
  file: string;
  /** Absolute path of better-sqlite3's entry, loaded by every thread. */
  betterSqlitePath: string;
  /** sqlite-vec's loadable extension, when it is installed. */
  vectorExtensionPath?: string;
  /** Pragmas of the connection that writes (WAL, foreign keys, …), run when its thread opens it. */
  writerPragmas: readonly string[];
  /** Pragmas of the read-only connections. */
  readerPragmas: readonly string[];
  /** Read-only connections, each in its own thread, started as reads need them. */
  readers: number;
}

/**
 * SQLite for Kysely with every statement in a thread (decision 34): one connection writes (SQLite has one writer
 * at a time anyway; statements and transactions take it in turn, first come first served), and up to
 * `readers` read-only connections answer SELECTs outside transactions at the same time, from the last committed
 * state (WAL). So a request's reads never wait for the pipeline's writes, and the event loop never waits for
 * SQLite at all — as with PostgreSQL's pool, whose semantics the code already follows.
 */
export function createThreadedSqliteDialect(options: ThreadedSqliteOptions): Dialect {
  return {
    createAdapter: (): DialectAdapter => new SqliteAdapter(),
    createDriver: (): Driver => new ThreadedSqliteDriver(options),
    createIntrospector: (db: Kysely<unknown>): DatabaseIntrospector => new SqliteIntrospector(db),
    createQueryCompiler: (): QueryCompiler => new SqliteQueryCompiler(),
  };
}

/** A SELECT (built or raw) can run on a read-only connection; anything else (WITH included) goes to the writer. */
function isRead(query: CompiledQuery): boolean {
  if (SelectQueryNode.is(query.query)) return true;
  return RawNode.is(query.query) && /^\s*select\s/i.test(query.sql);
}

function toQueryResult<R>(result: StatementResult): QueryResult<R> {
  if ('rows' in result) {
    for (const row of result.rows) {
      for (const key in row) {
        const value = row[key];
        // BLOBs arrive as Uint8Array: the code reads them as Buffers, as better-sqlite3 returns them.
        if (value instanceof Uint8Array && !Buffer.isBuffer(value))
          row[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      }
    }
    return { rows: result.rows as R[] };
  }
  return {
    numAffectedRows: BigInt(result.changes),
    insertId: BigInt(result.lastInsertRowid),
    rows: [],
  };
}

/** How long a close waits for the writes and transactions already under way. */
const CLOSE_WAIT_MS = 10_000;

/** First come, first served turns at the one writing connection. */
class Turns {
  private tail: Promise<void> = Promise.resolve();

  /** Resolves when it is the caller's turn, with the function that ends it. */
  take(): Promise<() => void> {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const turn = this.tail.then(() => end);
    this.tail = this.tail.then(() => ended);
    return turn;
  }
}

class ThreadedSqliteDriver implements Driver {
  private readonly writer: SqliteThread;
  private readonly readers: SqliteThread[] = [];
  private readonly turns = new Turns();
  private closed = false;

  constructor(private readonly options: ThreadedSqliteOptions) {
    this.writer = new SqliteThread(this.threadOptions(false));
  }

  private threadOptions(readonly: boolean): SqliteThreadOptions {
    const { file, betterSqlitePath, vectorExtensionPath } = this.options;
    return {
      file,
      readonly,
      pragmas: readonly ? this.options.readerPragmas : this.options.writerPragmas,
      betterSqlitePath,
      ...(vectorExtensionPath ? { vectorExtensionPath } : {}),
    };
  }

  async init(): Promise<void> {
    // Opens the writer first: it creates the file's WAL, which the read-only connections need.
    await this.writer.run('SELECT 1', []);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Lease(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (this.closed) throw new Error('The database is closed');
    const endTurn = await this.turns.take();
    const release = this.writer.hold();
    try {
      // Bound to the writer's current thread: if it stops mid-transaction, the rest fails (never runs alone).
      const generation = this.writer.generation();
      // IMMEDIATE: the transaction holds the write lock from its start, so it never fails half-way on a lock
      // another process took meanwhile (it waits for it here, busy_timeout).
      await this.writer.run('BEGIN IMMEDIATE', [], generation);
      lease.transaction = {
        generation,
        end: () => {
          release();
          endTurn();
        },
      };
    } catch (err) {
      release();
      endTurn();
      throw err;
    }
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.finish(connection as Lease, 'COMMIT');
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.finish(connection as Lease, 'ROLLBACK');
  }

  /**
   * Ends the lease's transaction and its turn, once: after a COMMIT that failed (rolled back here), the ROLLBACK
   * Kysely sends next is a no-op, so the caller sees the COMMIT's error and no statement runs outside the turn.
   */
  private async finish(lease: Lease, statement: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    const transaction = lease.transaction;
    if (!transaction) return;
    lease.transaction = undefined;
    try {
      await this.writer.run(statement, [], transaction.generation);
    } catch (err) {
      // A COMMIT that failed leaves the transaction open: roll it back before the next turn.
      if (statement === 'COMMIT')
        await this.writer.run('ROLLBACK', [], transaction.generation).catch(() => {});
      throw err;
    } finally {
      transaction.end();
    }
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint "${name}"`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to "${name}"`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release "${name}"`));
  }

  async releaseConnection(): Promise<void> {}

  /**
   * Refuses new statements, lets the writes and transactions already waiting for the writer finish (up to
   * CLOSE_WAIT_MS: a transaction that never ends does not hold the close forever), then closes every connection.
   * A closed database never opens the file again.
   */
  async destroy(): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_WAIT_MS);
    });
    await Promise.race([this.turns.take().then((endTurn) => endTurn()), waited]);
    clearTimeout(timer);
    await Promise.all([this.writer.close(), ...this.readers.map((r) => r.close())]);
  }

  /** A statement inside a transaction: on the writer's thread the transaction began on, in its turn. */
  runInTransaction(query: CompiledQuery, generation: number): Promise<StatementResult> {
    return this.writer.run(query.sql, query.parameters, generation);
  }

  /** A statement outside any transaction: a read on the least busy reader, a write in its turn on the writer. */
  async runAlone(query: CompiledQuery): Promise<StatementResult> {
    // A closed database stays closed (a thread would otherwise open the file again).
    if (this.closed) throw new Error('The database is closed');
    if (isRead(query)) return this.reader().run(query.sql, query.parameters);
    // Taken before the close began: it runs, and the close waits for it.
    const endTurn = await this.turns.take();
    try {
      return await this.writer.run(query.sql, query.parameters);
    } finally {
      endTurn();
    }
  }

  private reader(): SqliteThread {
    let best: SqliteThread | undefined;
    for (const r of this.readers) if (!best || r.inFlight < best.inFlight) best = r;
    if ((!best || best.inFlight > 0) && this.readers.length < this.options.readers) {
      best = new SqliteThread(this.threadOptions(true));
      this.readers.push(best);
    }
    return best ?? this.writer;
  }
}

/** What Kysely holds while it runs a query or a transaction: statements are routed by the driver. */
class Lease implements DatabaseConnection {
  /** Set while the lease runs a transaction: the writer's thread it is bound to, and how to end its turn. */
  transaction: { generation: number; end: () => void } | undefined;

  constructor(private readonly driver: ThreadedSqliteDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = this.transaction
      ? await this.driver.runInTransaction(query, this.transaction.generation)
      : await this.driver.runAlone(query);
    return toQueryResult<R>(result);
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite streams only select queries');
    const { rows } = await this.executeQuery<R>(query);
    for (const row of rows) yield { rows: [row] };
  }
}
