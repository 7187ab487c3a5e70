import { Worker } from 'node:worker_threads';
import { AppError } from '../../../lib/errors.ts';
import { SCAN_THREAD_SOURCE } from './scan-thread.source.ts';

/** Scans waiting for the thread beyond which a search fails at once rather than queue (it would time out anyway). */
const MAX_WAITING = 64;
/** An idle thread ends after this long; the next scan starts another (tens of milliseconds). */
const IDLE_MS = 60_000;

export interface ScanRequest {
  /** One row of `dims` per note, over a SharedArrayBuffer (shared with the thread, not copied). */
  vectors: Float32Array;
  count: number;
  dims: number;
  query: Float32Array;
  k: number;
}

/** Rows nearest to the query, best first: `k`, plus any tied with the k-th. */
export interface ScanResult {
  indexes: Int32Array;
  similarities: Float64Array;
}

interface Pending {
  worker: Worker;
  resolve(result: ScanResult): void;
  reject(err: Error): void;
}

/**
 * The exact store's scanning thread (scan-thread.source.ts): one per ExactVectorCache, so one per Deps. It runs one
 * scan at a time (each uses a whole core), at most MAX_WAITING more queue, and it starts on the first scan, ends
 * when idle, and never keeps the process alive.
 */
export class ScanThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;

  scan(request: ScanRequest): Promise<ScanResult> {
    if (!(request.vectors.buffer instanceof SharedArrayBuffer)) {
      return Promise.reject(new Error('the vectors to scan must be in a SharedArrayBuffer'));
    }
    if (this.pending.size > MAX_WAITING) {
      return Promise.reject(
        new AppError('unavailable', 'Too many searches are running right now. Try again shortly.'),
      );
    }
    const worker = this.start();
    const id = this.nextId++;
    clearTimeout(this.idleTimer);
    return new Promise<ScanResult>((resolve, reject) => {
      this.pending.set(id, { worker, resolve, reject });
      worker.postMessage({ id, ...request });
    });
  }

  /** Ends the thread; scans in flight fail. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(SCAN_THREAD_SOURCE, { eval: true });
    worker.unref();
    worker.on('message', (m: { id: number; error?: string } & Partial<ScanResult>) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error !== undefined || !m.indexes || !m.similarities)
        p.reject(new Error(m.error ?? 'scan failed'));
      else p.resolve({ indexes: m.indexes, similarities: m.similarities });
      if (this.pending.size === 0) this.idleTimer = setTimeout(() => void this.close(), IDLE_MS).unref();
    });
    worker.on('error', (err) => this.stopped(worker, err));
    worker.on('exit', () => this.stopped(worker, new Error('the vector scanning thread stopped')));
    this.worker = worker;
    return worker;
  }

  /** A thread that failed or ended fails its scans; the next scan starts a new one. */
  private stopped(worker: Worker, err: Error): void {
    if (this.worker === worker) this.worker = undefined;
    for (const [id, p] of this.pending) {
      if (p.worker !== worker) continue;
      this.pending.delete(id);
      p.reject(err);
    }
  }
}
