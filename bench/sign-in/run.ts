/**
 * `npm run bench:sign-in`: do unauthenticated sign-ins stall everyone's file I/O? argon2 runs on libuv's thread
 * pool (4 threads), shared with file reads and DNS. While 40 sign-ins with unknown emails are checked at once,
 * a 1 MiB file read (an audio download's kind of work) is timed, three ways: idle, with the hashes uncapped (a baseline of
 * the same run: @node-rs/argon2 called directly, as before the cap) and through the cap (passwords.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { verify } from '@node-rs/argon2';
import { hashPassword, MAX_CONCURRENT_HASHES, verifyDecoy } from '../../src/features/users/passwords.ts';

const CONCURRENT_SIGN_INS = Number(process.env.BENCH_SIGN_INS ?? 40);
const READS = Number(process.env.BENCH_READS ?? 8);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-bench-sign-in-'));
const file = path.join(dir, 'audio.bin');
fs.writeFileSync(file, Buffer.alloc(1024 * 1024, 7));

async function timeReads(): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < READS; i++) {
    const started = performance.now();
    await fs.promises.readFile(file);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

/** Keeps `CONCURRENT_SIGN_INS` checks in flight until `stop` says so. */
async function underLoad(check: (i: number) => Promise<unknown>): Promise<number[]> {
  let stop = false;
  const workers = Array.from({ length: CONCURRENT_SIGN_INS }, async (_, i) => {
    while (!stop) await check(i).catch(() => undefined);
  });
  // Let the pool fill before timing.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const times = await timeReads();
  stop = true;
  await Promise.all(workers);
  return times;
}

const summary = (name: string, t: number[]) => {
  const at = (q: number) => t[Math.min(t.length - 1, Math.floor(q * t.length))]!;
  return `| ${name} | ${at(0.5).toFixed(1)} | ${at(0.95).toFixed(1)} | ${t.at(-1)!.toFixed(1)} |`;
};

const decoy = await hashPassword('decoy password that matches nothing');
await verifyDecoy('warm up');
const idle = await timeReads();
const uncapped = await underLoad((i) => verify(decoy, `guess ${i}`));
const capped = await underLoad((i) => verifyDecoy(`guess ${i}`));
fs.rmSync(dir, { recursive: true, force: true });

console.log(
  `1 MiB file read (ms) while ${CONCURRENT_SIGN_INS} unknown-email sign-ins are checked at once; ` +
    `${READS} reads each; libuv pool ${process.env.UV_THREADPOOL_SIZE ?? 4} threads, cap ${MAX_CONCURRENT_HASHES}; ` +
    `${os.cpus().length} cores\n`,
);
console.log('| load | median | p95 | max |\n|---|---|---|---|');
console.log(summary('idle', idle));
console.log(summary('40 sign-ins, uncapped (baseline)', uncapped));
console.log(summary(`40 sign-ins, capped at ${MAX_CONCURRENT_HASHES}`, capped));
