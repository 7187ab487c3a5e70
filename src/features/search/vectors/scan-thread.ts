import { AppError } from '../../../lib/errors.ts';
import { RequestThread } from '../../../lib/request-thread.ts';
import { SCAN_THREAD_SOURCE } from './scan-thread.source.ts';

/** Scans waiting for the thread beyond which a search fails at once rather than queue (it would time out anyway). */
const MAX_WAITING = 64;
/** An idle thread ends after this long; the next scan starts another (tens of milliseconds). */
const IDLE_MS = 60_000;

/** A space's vectors where the scanning thread computes: shared WebAssembly memory (not copied per scan). */
export interface ScanSpace {
  memory: WebAssembly.Memory;
  /** One row of `dims` per note, at the start of `memory`; fill it before the first scan. */
  vectors: Float32Array;
}

const PAGE = 65_536;

/**
 * Where a scan of `count` rows of `dims` keeps its scores (float64, one a row, after the rows and the query), and
 * the bytes it needs: the layout scan-thread.source.ts uses.
 */
export function scanLayout(count: number, dims: number): { scoresAt: number; bytes: number } {
  const scoresAt = Math.ceil(((count + 1) * dims * 4) / 8) * 8;
  return { scoresAt, bytes: scoresAt + count * 8 };
}

/** Memory for `rows` vectors of `dims` floats and the room a scan of them uses, in whole WebAssembly pages. */
export function allocateScanSpace(rows: number, dims: number): ScanSpace {
  const pages = Math.max(1, Math.ceil(scanLayout(rows, dims).bytes / PAGE));
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
  return { memory, vectors: new Float32Array(memory.buffer, 0, rows * dims) };
}

export interface ScanRequest {
  /** Where the vectors are (allocateScanSpace): the first `count` rows are scanned. */
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
 * when idle, and never keeps the process alive.
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
      throw new Error('the vectors to scan must be in shared WebAssembly memory (allocateScanSpace)');
    }
    if (scanLayout(count, dims).bytes > memory.buffer.byteLength) {
      throw new Error(`${count} rows of ${dims} do not fit the memory to scan`);
    }
    if (this.thread.inFlight > MAX_WAITING) {
      throw new AppError('unavailable', 'Too many searches are running right now. Try again shortly.');
    }
    clearTimeout(this.idleTimer);
    const reply = await this.thread.request(request);
    if ('error' in reply) throw new Error(reply.error);
    return { indexes: reply.indexes, similarities: reply.similarities };
  }

  /** Ends the thread; scans in flight fail. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    await this.thread.terminate();
  }
}
