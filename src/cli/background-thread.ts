import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { BackgroundWorkers } from './workers.ts';

export type BackgroundThreadMessage = { type: 'wake' } | { type: 'stop' };
export type BackgroundThreadReply = { type: 'started' } | { type: 'stopped' };

/**
 * The thread runs background-thread.worker.ts: in the bundle `npm start` runs, dist/background-worker.js beside
 * dist/main.js (scripts/build.js builds both); under tsx and vitest the source file, imported by a one-line
 * script once tsx's loader is in place (a .ts file cannot be a thread's first module).
 */
const fromSource = import.meta.url.endsWith('.ts');
function createThread(config: Config): Worker {
  if (!fromSource)
    return new Worker(new URL('./background-worker.js', import.meta.url), { workerData: { config } });
  const entry = new URL('./background-thread.worker.ts', import.meta.url).href;
  // tsx's ESM API (the file its package exports as `tsx/esm/api` to `import`).
  const tsxRoot = path.dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsxApi = pathToFileURL(path.join(tsxRoot, 'dist/esm/api/index.mjs')).href;
  const script = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(script, { eval: true, workerData: { config } });
}

/** A thread up this long before it stopped counts as healthy: its restart backoff starts over. */
const STABLE_MS = 60_000;

/** How long stop() waits for the thread to finish its work in hand before terminating it. */
const STOP_LIMIT_MS = 30_000;

/** A thread that stops unexpectedly is started again after this long (doubling up to a minute). */
const RESTART_MS = 1_000;

/**
 * Runs the server's background work (note processing, webhook deliveries, retention) in a thread of its own,
 * with its own database connection and search engine, as a `minutes worker` process would (decision 35): the
 * API's event loop then only serves requests, whatever the pipeline is doing — reading 2 MB transcripts back,
 * writing thousands of search passages, serialising events. Returns at once (the thread loads its code
 * meanwhile; its loops look for work as they start, so a wake-up sent before then is not needed). A thread that stops unexpectedly, or fails to start, is
 * logged and started again, one second later at first and up to a minute (jobs are durable: a restart
 * resumes them).
 */
export function startBackgroundThread(config: Config, logger: Logger): BackgroundWorkers {
  let worker: Worker;
  /** Resolves when the current thread has exited. */
  let exited: Promise<void> = Promise.resolve();
  let stopping = false;
  let restartMs = RESTART_MS;
  let restartTimer: NodeJS.Timeout | undefined;

  const start = () => {
    const thread = createThread(config);
    worker = thread;
    exited = new Promise<void>((done) => thread.once('exit', () => done()));
    let stopped = false;
    let startedAt: number | undefined;
    thread.on('message', (message: BackgroundThreadReply) => {
      if (message.type === 'started') startedAt = Date.now();
      else if (message.type === 'stopped') stopped = true;
    });
    thread.on('error', (err) => logger.error({ err }, 'background thread failed'));
    thread.on('exit', (code) => {
      if (stopping || stopped) return;
      // A thread that ran a good while before it stopped starts again at once; one that keeps failing (at start,
      // or on the same job) waits longer each time.
      if (startedAt !== undefined && Date.now() - startedAt >= STABLE_MS) restartMs = RESTART_MS;
      logger.error({ exit_code: code, restart_in_ms: restartMs }, 'background thread stopped; restarting it');
      restartTimer = setTimeout(() => {
        restartTimer = undefined;
        if (!stopping) start();
      }, restartMs);
      restartMs = Math.min(60_000, restartMs * 2);
    });
  };

  start();
  return {
    wake() {
      worker.postMessage({ type: 'wake' } satisfies BackgroundThreadMessage);
    },
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      worker.postMessage({ type: 'stop' } satisfies BackgroundThreadMessage);
      // The thread records the work in hand and exits; one that does not within the limit is stopped.
      const limit = setTimeout(() => void worker.terminate(), STOP_LIMIT_MS);
      await exited;
      clearTimeout(limit);
    },
  };
}
