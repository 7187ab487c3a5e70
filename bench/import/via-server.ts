import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dialect } from '../../src/db/schema.ts';
import { createAccount } from '../../src/features/accounts/accounts.service.ts';
import { createApiKey } from '../../src/features/api-keys/api-keys.service.ts';
import { type Latencies, readSteadily } from '../isolation/steady-reader.ts';
import { childDatabase, childEnv, freePort, stopChild, waitForReady } from '../lib/child-server.ts';
import { benchDeps } from '../search/setup.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** bench:isolation's reader and goal: GET /v1/notes 20 times a second; p99 < 50 ms and < 2× the idle p99. */
const RATE = 20;
const WINDOW_SECONDS = 30;
const GOAL_P99_MS = 50;
const GOAL_RATIO = 2;

/**
 * IMPORT_BENCH_VIA=server: the export is sent to the real server (dist/main.js, its job worker on, as deployed)
 * with POST /v1/imports while bench:isolation's steady reader reads GET /v1/notes beside it, in windows of 30 s
 * until every note is ready. Reports the rate, the server's peak resident memory (VmHWM) and the reader's
 * latencies idle and in each window of the import.
 */
export async function importViaServer(options: {
  archive: string;
  dataDir: string;
  lifelogs: number;
  dialect: Dialect;
  modelsDir: string;
}): Promise<Record<string, unknown>> {
  const { env, database, drop } = await childDatabase(options.dialect, options.dataDir, {
    ...(process.env.BENCH_DATABASE_URL ? { pgAdminUrl: process.env.BENCH_DATABASE_URL } : {}),
    prefix: 'minutes_bench',
  });
  const deps = benchDeps(database);
  const account = await createAccount(deps, { email: 'importer@example.com', name: 'Importer' });
  const key = (await createApiKey(deps, { accountId: account.id, mode: 'live', name: 'import' })).key;
  const port = await freePort();
  const server = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js'], {
    cwd: ROOT,
    env: childEnv({
      ...env,
      DATA_DIR: options.dataDir,
      MODELS_DIR: options.modelsDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.on('error', (err) => process.stderr.write(`[server] ${err.message}\n`));
  server.stdout?.on('data', (d: Buffer) => process.stderr.write(`[server] ${d}`));
  server.stderr?.on('data', (d: Buffer) => process.stderr.write(`[server] ${d}`));
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForReady(base, server);
    const listUrl = `${base}/v1/notes?per_page=20`;
    const idle = await readSteadily(listUrl, key, 10, RATE);

    const cpuBefore = serverCpuSeconds(server.pid);
    const started = performance.now();
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(options.archive)]), 'limitless-export.zip');
    form.append('me', 'Sam');
    const accepted = await fetch(`${base}/v1/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    if (accepted.status !== 202) throw new Error(`POST /v1/imports answered ${accepted.status}`);
    const { id } = (await accepted.json()) as { id: string };

    let imported: number | undefined;
    let view: { status: string; imported: number; failed: number } | undefined;
    const windows: Latencies[] = [];
    for (;;) {
      // One window of reads, the import's and the notes' progress looked at after it.
      windows.push(await readSteadily(listUrl, key, WINDOW_SECONDS, RATE));
      const res = await fetch(`${base}/v1/imports/${id}`, { headers: { authorization: `Bearer ${key}` } });
      view = (await res.json()) as typeof view;
      if (view?.status === 'running') continue;
      imported ??= performance.now();
      const waiting = await database.db
        .selectFrom('notes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', account.id)
        .where('status', '=', 'processing')
        .executeTakeFirstOrThrow();
      if (Number(waiting.n) === 0) break;
    }
    const done = performance.now();
    const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1];
    const cpuS = serverCpuSeconds(server.pid) - cpuBefore;
    const worstP99 = Math.max(...windows.map((w) => w.p99));
    const minutes = (done - started) / 60_000;
    return {
      lifelogs: options.lifelogs,
      via: 'server',
      imported: view?.imported,
      failed: view?.failed,
      // Read after each 30 s window, so both times are late by up to one window.
      import_s: Math.round(((imported ?? done) - started) / 100) / 10,
      total_s: Math.round((done - started) / 100) / 10,
      lifelogs_per_minute: Math.round(options.lifelogs / minutes),
      // The server's CPU time over the import (all its threads): the work per lifelog whatever the machine's load.
      server_cpu_s: Math.round(cpuS),
      server_cpu_s_per_lifelog: Math.round((cpuS / options.lifelogs) * 1000) / 1000,
      server_peak_rss_mb: hwm ? Math.round(Number(hwm) / 1024) : null,
      reader_idle: idle,
      reader_windows: windows.map((w) => ({
        count: w.count,
        errors: w.errors,
        p50: w.p50,
        p99: w.p99,
        max: w.max,
      })),
      reader_worst_p99_ms: worstP99,
      reader_goal: `p99 < ${GOAL_P99_MS} ms and < ${GOAL_RATIO}× idle p99 (${(GOAL_RATIO * idle.p99).toFixed(1)} ms): ${
        worstP99 < GOAL_P99_MS && worstP99 < GOAL_RATIO * idle.p99 ? 'met' : 'not met'
      } in every window`,
      dialect: options.dialect,
    };
  } finally {
    await stopChild(server);
    await deps.close();
    await drop();
  }
}

/** User plus system CPU seconds of a process so far, from /proc (Linux; clock ticks of 1/100 s). */
function serverCpuSeconds(pid: number | undefined): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
