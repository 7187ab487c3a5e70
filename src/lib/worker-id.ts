import { hostname } from 'node:os';
import { randomBase62 } from './ids.ts';

/**
 * A worker id that tells operators where a job or delivery ran: host, process, and a random part for
 * uniqueness (`host/pid/xxxxxx`). Recorded in `jobs.locked_by`.
 */
export function createWorkerId(): string {
  return `${hostname()}/${process.pid}/${randomBase62(6)}`;
}
