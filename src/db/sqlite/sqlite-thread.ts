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
 * they were sent. The thread keeps the process alive only while a statement is in flight, so a process that
 * forgets to close its database still exits; a thread that stops fails what was in flight, and the next statement
 * starts a new one.
 */
export class SqliteThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly options: SqliteThreadOptions) {}

  /** Statements sent and not answered yet. */
  get inFlight(): number {
    return this.pending.size;
  }

  run(sql: string, params: readonly unknown[]): Promise<StatementResult> {
    return this.send({ sql, params }) as Promise<StatementResult>;
  }

  /** Closes the connection and stops the thread; statements sent before are answered first. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    try {
      await this.send({ close: true });
    } finally {
      this.worker = undefined;
      await worker.terminate();
    }
  }

  private send(message: { sql: string; params: readonly unknown[] } | { close: true }) {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<StatementResult | undefined>((resolve, reject) => {
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...message });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(SQLITE_THREAD_SOURCE, { eval: true, workerData: this.options });
    worker.unref();
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
    if (this.pending.size === 0) this.worker?.unref();
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
