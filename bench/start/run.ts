/**
 * Start time of `npm start` (build + bundle) against the baseline of running the sources through tsx (what
 * `npm start` ran until stop 8), in the same run, alternating: spawn → `minutes listening` logged (the keys of a
 * first start are printed on the same tick) → /readyz no longer reports search as `preparing`. Each round uses a fresh DATA_DIR (cold: the
 * builtin embedder's binary cache is built) and then the same one again (warm). SQLite.
 *
 *   npm run bench:start [-- rounds]      (default 3)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childEnv } from '../lib/child-server.ts';

const VARIANTS: Record<string, string[]> = {
  'npm start (bundle)': ['start', '--silent'],
  'tsx src/main.ts (baseline)': ['exec', '--silent', '--', 'tsx', 'src/main.ts'],
};
const ROOT = path.resolve(import.meta.dirname, '../..');
const rounds = Number(process.argv[2] ?? 3);

async function timeStart(npmArgs: string[], dataDir: string): Promise<{ listening: number; ready: number }> {
  const t0 = performance.now();
  const child = spawn('npm', npmArgs, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: childEnv({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    let out = '';
    let listening = 0;
    const url = await new Promise<string>((resolve, reject) => {
      child.on('exit', (code) => reject(new Error(`npm ${npmArgs.join(' ')} exited with ${code}:\n${out}`)));
      child.stdout.on('data', (d: Buffer) => {
        out += d;
        const found = /"url":"([^"]+)"[^\n]*"minutes listening"/.exec(out)?.[1];
        if (found && !listening) {
          listening = performance.now() - t0;
          resolve(found);
        }
      });
    });
    const searchReady = async () =>
      ((await (await fetch(`${url}/readyz`)).json()) as { search?: string }).search;
    while ((await searchReady()) === 'preparing') await new Promise((r) => setTimeout(r, 50));
    return { listening, ready: performance.now() - t0 };
  } finally {
    if (child.pid) process.kill(-child.pid);
    await exited;
  }
}

const results = new Map<string, { listening: number; ready: number }[]>();
for (let round = 0; round < rounds; round++) {
  for (const [name, npmArgs] of Object.entries(VARIANTS)) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-bench-start-'));
    try {
      for (const start of ['cold', 'warm']) {
        const t = await timeStart(npmArgs, dataDir);
        const key = `${name}, ${start}`;
        results.set(key, [...(results.get(key) ?? []), t]);
        console.log(
          `${key}: listening ${(t.listening / 1000).toFixed(2)} s, search ready ${(t.ready / 1000).toFixed(2)} s`,
        );
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};
console.log(
  `\nmedians over ${rounds} rounds (${os.cpus().length} CPUs, Node ${process.version}, load ${os.loadavg()[0]!.toFixed(1)})`,
);
for (const [key, ts] of results) {
  const l = median(ts.map((t) => t.listening));
  const r = median(ts.map((t) => t.ready));
  console.log(
    `${key.padEnd(36)} listening ${(l / 1000).toFixed(2)} s   search ready ${(r / 1000).toFixed(2)} s`,
  );
}
for (const start of ['cold', 'warm']) {
  const [a, b] = Object.keys(VARIANTS).map((n) =>
    median(results.get(`${n}, ${start}`)!.map((t) => t.listening)),
  );
  console.log(`${start}: bundle listens in ${((a! / b!) * 100).toFixed(0)} % of the baseline's time`);
}
