import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const CLOCK_TICKS_PER_S = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU time (user + system, every thread) a process has used so far, in ms, from /proc; undefined where there is no
 * /proc or no such process. Steadier than wall time on a machine other work shares.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) " the fields start at the state; utime and stime are the 12th and 13th from there.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return undefined;
  }
}
