import fs from 'node:fs';
import os from 'node:os';

/**
 * How much lower than the API's thread the background threads run (processing, the sentence model): on a
 * machine with fewer cores than busy threads the scheduler then gives the API's event loop the CPU first.
 */
export const BACKGROUND_NICE_INCREMENT = 10;

/**
 * Sets the calling thread's priority to the process's (its main thread's) plus the increment: relative to the
 * process, not to the calling thread, so a background thread started by another one (processing threads of the
 * background thread) lands on the same level instead of lower still. On Linux a thread is a task of its own
 * with its own nice value, found through /proc/thread-self; threads it creates afterwards inherit the value.
 * Elsewhere (or where lowering is refused) the thread keeps the process's priority. The sentence model's thread
 * and the Omi export's parsing thread, which run evaluated JavaScript, do the same in inference-worker.ts and
 * omi-json-thread.source.ts.
 */
export function lowerThreadPriority(increment = BACKGROUND_NICE_INCREMENT): void {
  try {
    const tid = Number(/task\/(\d+)$/.exec(fs.readlinkSync('/proc/thread-self'))?.[1]);
    if (tid > 0) os.setPriority(tid, Math.min(19, os.getPriority(process.pid) + increment));
  } catch {
    // not Linux, or not allowed: same priority as the API
  }
}
