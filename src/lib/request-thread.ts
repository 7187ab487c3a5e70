import { Worker } from 'node:worker_threads';

interface Pending<Reply> {
  worker: Worker;
  resolve(reply: Reply): void;
  reject(err: Error): void;
}

export interface RequestThreadOptions {
  /** The thread's code, evaluated as a script (a thread's first module cannot be a .ts file under tsx). */
  source: string;
  workerData?: unknown;
  /** What the requests of a thread that ended fail with. */
  stoppedError: () => Error;
  /** Called with each new thread, before any request reaches it. */
  onStart?: (worker: Worker) => void;
  /** Called when a request is settled by its reply or by failing to be sent, before its promise settles. */
  onSettled?: () => void;
}

/**
 * A thread that answers numbered requests (`{ id, …message }` in, `{ id, … }` out), started on the first request.
 * A thread that fails or ends fails the requests sent to it, and the next request starts another; the owner
 * decides when the thread is referenced, idle or closed (the SQLite connection thread, the vector scan thread).
 */
export class RequestThread<Reply extends { id: number }> {
  private current: Worker | undefined;
  private readonly pending = new Map<number, Pending<Reply>>();
  private nextId = 1;
  private startedCount = 0;

  constructor(private readonly options: RequestThreadOptions) {}

  /** The thread running now, if any. */
  get worker(): Worker | undefined {
    return this.current;
  }

  /** Threads started so far: a request bound to one thread compares it. */
  get started(): number {
    return this.startedCount;
  }

  /** Requests sent and not answered yet. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** The thread running now, started if none is. */
  start(): Worker {
    if (this.current) return this.current;
    const worker = new Worker(this.options.source, { eval: true, workerData: this.options.workerData });
    this.startedCount++;
    this.options.onStart?.(worker);
    worker.on('message', (reply: Reply) => this.receive(reply));
    worker.on('error', (err) => this.stopped(worker, err));
    worker.on('exit', () => this.stopped(worker, this.options.stoppedError()));
    this.current = worker;
    return worker;
  }

  /** Sends a request to the thread (started if needed) and resolves with the reply of the same id. */
  request(message: object): Promise<Reply> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { worker, resolve, reject });
      try {
        worker.postMessage({ ...message, id });
      } catch (err) {
        // A message that cannot be sent (not cloneable) never gets a reply: it must not stay in flight.
        this.pending.delete(id);
        this.options.onSettled?.();
        reject(err as Error);
      }
    });
  }

  /** Ends the thread now; its requests in flight fail. The next request starts another. */
  async terminate(): Promise<void> {
    const worker = this.current;
    this.current = undefined;
    await worker?.terminate();
  }

  private receive(reply: Reply): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    this.options.onSettled?.();
    pending.resolve(reply);
  }

  private stopped(worker: Worker, err: Error): void {
    if (this.current === worker) this.current = undefined;
    for (const [id, pending] of this.pending) {
      if (pending.worker !== worker) continue;
      this.pending.delete(id);
      pending.reject(err);
    }
  }
}
