import { Worker } from 'node:worker_threads';

/**
 * The steady reader of bench:isolation, in a thread of its own (steady-reader.worker.mjs): the bench's main thread
 * posts megabyte bodies and parses the 202 answers that echo them, and a read whose answer arrived while that
 * thread was busy would be timed late for the client's own sake, not the server's. The two threads still share
 * the machine's cores, as a real client's would.
 */
export interface Latencies {
  count: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
}

/** GET `url` `rate` times a second (open loop: a slow answer does not delay the next request) for `seconds`. */
export function readSteadily(url: string, key: string, seconds: number, rate: number): Promise<Latencies> {
  const worker = new Worker(new URL('./steady-reader.worker.mjs', import.meta.url), {
    workerData: { url, key, seconds, rate },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (latencies: Latencies) => {
      resolve(latencies);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the reader thread exited (${code})`)));
  });
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
