import { RequestThread } from '../../lib/request-thread.ts';
import { SQLITE_THREAD_SOURCE } from './sqlite-thread.source.ts';

export interface SqliteThreadOptions {
  file: string;
  readonly: boolean;
  pragmas: readonly string[];
  betterSqlitePath: string;
  vectorExtensionPath?: string;
}

export type StatementResult =
  | { rows: Record<string, unknown>[] }
  | { changes: number; lastInsertRowid: number | bigint };

type Reply =
  | { id: number; rows: Record<string, unknown>[] }
  | { id: number; changes: number; lastInsertRowid: number | bigint }
  | { id: number; error: { message: string; code?: string } }
  | { id: number; closed: true };

/** An error of a statement, as better-sqlite3 raised it in the thread (its `code`, e.g. SQLITE_BUSY, kept). */
export class SqliteError extends Error {
  override name = 'SqliteError';
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/**
 * One SQLite connection in a thread of its own (sqlite-thread.source.ts). Statements are answered in the order
 * they were sent. The thread keeps the process alive only while a statement is in flight or a transaction holds
 * it, so a process that forgets to close its database still exits; a thread that stops fails what was in flight,
 * and the next statement outside a transaction starts a new one. A closed thread stays closed.
 */
export class SqliteThread {
  private readonly thread: RequestThread<Reply>;
  private closed = false;
  /** Holders (transactions) that keep the thread referenced while no statement is in flight. */
  private holds = 0;

  constructor(options: SqliteThreadOptions) {
    this.thread = new RequestThread<Reply>({
      source: SQLITE_THREAD_SOURCE,
      workerData: options,
      stoppedError: () => new Error('The database thread stopped'),
      onStart: (worker) => {
        if (this.holds === 0) worker.unref();
      },
      onSettled: () => {
        if (this.thread.inFlight === 0 && this.holds === 0) this.thread.worker?.unref();
      },
    });
  }

  /** Statements sent and not answered yet. */
  get inFlight(): number {
    return this.thread.inFlight;
  }

  /** The thread statements go to now (starting it if none runs): what a transaction binds itself to. */
  generation(): number {
    this.thread.start();
    return this.thread.started;
  }

  /**
   * Runs a statement. With `generation`, only on that thread: a statement of a transaction whose thread stopped
   * (its connection, and the transaction with it, are gone) fails instead of running alone on a new connection.
   */
  run(sql: string, params: readonly unknown[], generation?: number): Promise<StatementResult> {
    return this.send({ sql, params }, generation) as Promise<StatementResult>;
  }

  /** Keeps the process alive while a transaction holds this connection, between its statements too. */
  hold(): () => void {
    this.holds++;
    this.thread.worker?.ref();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      if (this.holds === 0 && this.thread.inFlight === 0) this.thread.worker?.unref();
    };
  }

  /** Closes the connection and stops the thread for good; statements sent before are answered first. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (!this.thread.worker) {
      this.closed = true;
      return;
    }
    try {
      await this.send({ close: true });
    } finally {
      this.closed = true;
      await this.thread.terminate();
    }
  }

  private async send(
    message: { sql: string; params: readonly unknown[] } | { close: true },
    generation?: number,
  ): Promise<StatementResult | undefined> {
    if (this.closed) throw new Error('The database is closed');
    if (generation !== undefined && (!this.thread.worker || generation !== this.thread.started)) {
      throw new Error('The database thread of this transaction stopped; the transaction was rolled back');
    }
    this.thread.start().ref();
    const reply = await this.thread.request(message);
    if ('error' in reply) throw new SqliteError(reply.error.message, reply.error.code);
    return 'closed' in reply ? undefined : reply;
  }
}
