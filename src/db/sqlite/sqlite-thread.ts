import { Worker } from 'node:worker_threads';
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

interface Pending {
  resolve(result: StatementResult | undefined): void;
  reject(err: Error): void;
}

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
  private worker: Worker | undefined;
  /** Counts the threads started: a transaction is bound to the one it began on. */
  private started = 0;
  private closed = false;
  /** Holders (transactions) that keep the thread referenced while no statement is in flight. */
  private holds = 0;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly options: SqliteThreadOptions) {}

  /** Statements sent and not answered yet. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** The thread statements go to now (starting it if none runs): what a transaction binds itself to. */
  generation(): number {
    this.start();
    return this.started;
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
    this.worker?.ref();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      if (this.holds === 0 && this.pending.size === 0) this.worker?.unref();
    };
  }

  /** Closes the connection and stops the thread for good; statements sent before are answered first. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (this.closed) return;
    if (!worker) {
      this.closed = true;
      return;
    }
    try {
      await this.send({ close: true });
    } finally {
      this.closed = true;
      this.worker = undefined;
      await worker.terminate();
    }
  }

  private send(message: { sql: string; params: readonly unknown[] } | { close: true }, generation?: number) {
    if (this.closed) return Promise.reject(new Error('The database is closed'));
    if (generation !== undefined && (!this.worker || generation !== this.started)) {
      return Promise.reject(
        new Error('The database thread of this transaction stopped; the transaction was rolled back'),
      );
    }
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<StatementResult | undefined>((resolve, reject) => {
      worker.ref();
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...message });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(SQLITE_THREAD_SOURCE, { eval: true, workerData: this.options });
    this.started++;
    if (this.holds === 0) worker.unref();
    worker.on('message', (reply: Reply) => this.receive(reply));
    worker.on('error', (err) => this.stopped(worker, err));
    worker.on('exit', () => this.stopped(worker, new Error('The database thread stopped')));
    this.worker = worker;
    return worker;
  }

  private receive(reply: Reply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0 && this.holds === 0) this.worker?.unref();
    if ('error' in reply) pending.reject(new SqliteError(reply.error.message, reply.error.code));
    else if ('closed' in reply) pending.resolve(undefined);
    else pending.resolve(reply);
  }

  private stopped(worker: Worker, err: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const failed = [...this.pending.values()];
    this.pending.clear();
    for (const p of failed) p.reject(err);
  }
}
