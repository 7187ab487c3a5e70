import { Worker } from 'node:worker_threads';
import { EmbedderError } from '../embedder.ts';
import { INFERENCE_WORKER_SOURCE } from './inference-worker.ts';

export interface ModelJob {
  texts: string[];
  resolve(rows: Float32Array[]): void;
  reject(err: unknown): void;
}

type WorkerMessage =
  | { type: 'ready' }
  | { type: 'failed'; error: string }
  | { id: number; vectors: Float32Array }
  | { id: number; error: string };

/** How long close() waits for the model's thread to end by itself. */
const CLOSE_LIMIT_MS = 5_000;

/**
 * One thread running the sentence model (inference-worker.ts) with its own onnxruntime session, one job in
 * flight at a time. `onFree` is called whenever it can take a job or be started again: loaded, a job settled,
 * stopped. A thread that stops is started again when work waits.
 */
export class ModelThread {
  private worker: Promise<Worker> | undefined;
  private inFlight: { id: number; job: ModelJob } | undefined;
  private nextId = 1;
  private loaded = false;

  constructor(
    private readonly workerData: Record<string, unknown>,
    private readonly dims: number,
    private readonly onFree: () => void,
  ) {}

  /** Free to take a job: loaded and nothing in flight. */
  get free(): boolean {
    return this.loaded && !this.inFlight;
  }

  /** Starts the thread if needed; resolves once the model is loaded there. */
  start(): Promise<Worker> {
    this.worker ??= new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(INFERENCE_WORKER_SOURCE, { eval: true, workerData: this.workerData });
      let ready = false;
      worker.on('message', (message: WorkerMessage) => {
        if ('type' in message) {
          if (message.type === 'ready') {
            ready = true;
            this.loaded = true;
            worker.unref();
            resolve(worker);
            this.onFree();
          } else {
            reject(new EmbedderError(`The sentence model could not be loaded: ${message.error}`));
            void worker.terminate();
          }
          return;
        }
        this.settle(message);
      });
      worker.on('error', (err) => {
        // Dying: no further job is sent to it (the exit that follows frees it for a restart).
        this.loaded = false;
        if (!ready) reject(new EmbedderError(`The sentence model could not be loaded: ${err.message}`));
        this.fail(err);
      });
      worker.on('exit', () => {
        this.worker = undefined;
        this.loaded = false;
        if (!ready) reject(new EmbedderError('The sentence model worker stopped while loading'));
        this.fail(new EmbedderError('The sentence model worker stopped'));
        // Stopped: jobs waiting for a thread may now start this one again.
        this.onFree();
      });
    });
    return this.worker;
  }

  /** Started and loading its session. */
  get loading(): boolean {
    return this.worker !== undefined && !this.loaded;
  }

  /** Not running: never started, or its thread stopped (the next start() starts it again). */
  get stopped(): boolean {
    return this.worker === undefined;
  }

  /** Sends a job to a free thread; the thread is referenced (keeps the process alive) only while it has one. */
  send(job: ModelJob): void {
    const id = this.nextId++;
    this.inFlight = { id, job };
    void this.start().then(
      (worker) => {
        worker.ref();
        worker.postMessage({ id, texts: job.texts });
      },
      (err: unknown) => this.fail(err),
    );
  }

  private settle(message: { id: number; vectors: Float32Array } | { id: number; error: string }): void {
    const current = this.inFlight;
    if (!current || current.id !== message.id) return;
    this.inFlight = undefined;
    void this.worker?.then((w) => w.unref());
    if ('error' in message) {
      current.job.reject(new EmbedderError(`The sentence model failed: ${message.error}`));
    } else {
      const dims = this.dims;
      current.job.resolve(current.job.texts.map((_, r) => message.vectors.slice(r * dims, (r + 1) * dims)));
    }
    this.onFree();
  }

  private fail(err: unknown): void {
    const current = this.inFlight;
    this.inFlight = undefined;
    current?.job.reject(err);
  }

  /** Lets the session go and ends the thread; terminated only if it has not ended within the limit. */
  async close(): Promise<void> {
    const worker = await this.worker?.catch(() => undefined);
    if (!worker) return;
    const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    worker.postMessage({ close: true });
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_LIMIT_MS);
    }).then(() => worker.terminate());
    await Promise.race([ended, limit]);
    clearTimeout(timer);
  }
}
