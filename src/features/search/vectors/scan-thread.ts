import { AppError } from '../../../lib/errors.ts';
import { RequestThread } from '../../../lib/request-thread.ts';
import { scanLayout } from './scan-memory.ts';
import { SCAN_THREAD_SOURCE } from './scan-thread.source.ts';

/** Scans waiting for the thread beyond which a search fails at once rather than queue (it would time out anyway). */
const MAX_WAITING = 64;
/** An idle thread ends after this long; the next scan starts another (tens of milliseconds). */
const IDLE_MS = 60_000;

export interface ScanRequest {
  /** Where the vectors are (ScanMemories): the first `count` rows of `dims` are scanned. */
  memory: WebAssembly.Memory;
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

type Reply = { id: number } & ({ error: string } | ScanResult);

/**
 * The exact store's scanning thread (scan-thread.source.ts): one per ExactVectorCache, so one per Deps. It runs one
 * scan at a time (each uses a whole core), at most MAX_WAITING more queue, and it starts on the first scan, ends
 * when idle, and never keeps the process alive. One scan at a time is also what lets a scan write its query and
 * scores into the space's memory: no other scan of that memory runs meanwhile.
 */
export class ScanThread {
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly thread = new RequestThread<Reply>({
    source: SCAN_THREAD_SOURCE,
    stoppedError: () => new Error('the vector scanning thread stopped'),
    onStart: (worker) => worker.unref(),
    onSettled: () => {
      if (this.thread.inFlight === 0) this.idleTimer = setTimeout(() => void this.close(), IDLE_MS).unref();
    },
  });

  async scan(request: ScanRequest): Promise<ScanResult> {
    const { memory, count, dims } = request;
    if (!(memory instanceof WebAssembly.Memory) || !(memory.buffer instanceof SharedArrayBuffer)) {
      throw new Error('the vectors to scan must be in shared WebAssembly memory (ScanMemories)');
    }
    if (request.query.length !== dims)
      throw new Error(`the query has ${request.query.length} dimensions, not ${dims}`);
    const layout = scanLayout(count, dims);
    if (layout.bytes > memory.buffer.byteLength) {
      throw new Error(`${count} rows of ${dims} do not fit the memory to scan`);
    }
    if (this.thread.inFlight > MAX_WAITING) {
      throw new AppError('unavailable', 'Too many searches are running right now. Try again shortly.');
    }
    clearTimeout(this.idleTimer);
    const reply = await this.thread.request({
      ...request,
      queryAt: layout.queryAt,
      scoresAt: layout.scoresAt,
    });
    if ('error' in reply) throw new Error(reply.error);
    return { indexes: reply.indexes, similarities: reply.similarities };
  }

  /** Ends the thread; scans in flight fail. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    await this.thread.terminate();
  }
}
