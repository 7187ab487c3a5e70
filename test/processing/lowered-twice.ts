import fs from 'node:fs';
import os from 'node:os';
import { lowerThreadPriority } from '../../src/lib/thread-priority.ts';

/**
 * A piscina task for thread-priority.test.ts: lowers its thread twice, as a processing thread started by the
 * (already lowered) background thread does, and answers the thread's nice value.
 */
export default function loweredTwice(): number {
  lowerThreadPriority();
  lowerThreadPriority();
  return os.getPriority(Number(/task\/(\d+)$/.exec(fs.readlinkSync('/proc/thread-self'))?.[1]));
}
