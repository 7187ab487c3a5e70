import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../config.ts';
import { createDeps } from '../deps.ts';
import { lowerThreadPriority } from '../lib/thread-priority.ts';
import type { BackgroundThreadMessage, BackgroundThreadReply } from './background-thread.ts';
import { type BackgroundWorkers, startBackgroundWorkers } from './workers.ts';

/**
 * The entry of the server's background thread (background-thread.ts): the job, delivery and retention loops
 * with a database connection and search engine of their own, as a `minutes worker` process has. Bundled as
 * dist/background-worker.js by scripts/build.js.
 */
if (!parentPort) throw new Error('background-thread.worker.ts runs as a worker thread');
// Background work yields the CPU to the API's thread: this thread and every thread it starts (its SQLite
// connections, processing threads, the sentence model) run at a lower priority (decision 41).
lowerThreadPriority();
const port: MessagePort = parentPort;
const { config } = workerData as { config: Config };
const reply = (message: BackgroundThreadReply) => port.postMessage(message);

let workers: BackgroundWorkers | undefined;
const deps = createDeps(config, { wakeWorker: () => workers?.wake() });

port.on('message', (message: BackgroundThreadMessage) => {
  if (message.type === 'wake') workers?.wake();
  else if (message.type === 'stop') void stop();
});

const starting = startBackgroundWorkers(deps);

let stopping: Promise<void> | undefined;
function stop(): Promise<void> {
  stopping ??= (async () => {
    try {
      // A stop that comes while the loops start waits for them, then stops them.
      await starting.catch(() => {});
      await workers?.stop();
      await deps.close();
    } finally {
      reply({ type: 'stopped' });
      // Ends this thread only (not the process), whatever handles are left (a sentence model still loading).
      process.exit(0);
    }
  })();
  return stopping;
}

try {
  workers = await starting;
  reply({ type: 'started' });
} catch (err) {
  await deps.close().catch(() => {});
  throw err;
}
