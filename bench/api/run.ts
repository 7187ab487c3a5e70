/**
 * `npm run bench:api`: throughput and latency of the read API against a bare node:http server that returns
 * the same bytes. Seeds 10,000 notes into a fresh SQLite database (and a fresh PostgreSQL database when
 * BENCH_DATABASE_URL or TEST_DATABASE_URL is set), starts the real server as a child process, drives it with
 * autocannon, and writes the results into docs/performance.md.
 *
 * Knobs (environment): BENCH_NOTES (10000), BENCH_DURATION seconds per run (10), BENCH_CONNECTIONS (32),
 * BENCH_DIALECTS (sqlite,postgres), BENCH_ONLY (health,list,filter,get),
 * BENCH_PROFILE=1 (CPU profile of the server, summarised at the end),
 * BENCH_WRITE_DOCS=0 (do not touch docs/performance.md).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import type { Dialect } from '../../src/db/schema.ts';
import { childDatabase, childEnv, freePort, stopChild, waitForReady } from '../lib/child-server.ts';
import { processCpuMs } from '../lib/process-cpu.ts';
import { mainThreadProfile, summarizeProfile } from './profile-summary.ts';
import { type SeedResult, seedNotes } from './seed.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NOTES = Number(process.env.BENCH_NOTES ?? 10_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WARMUP = Math.min(3, Math.max(1, Math.round(DURATION / 4)));
const PROFILE = process.env.BENCH_PROFILE === '1';
/** Comma-separated scenario ids (health, list, filter, get), e.g. to profile one endpoint alone. */
const ONLY = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const PG_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres')
  .split(',')
  .map((d) => d.trim())
  .filter((d): d is Dialect => d === 'sqlite' || (d === 'postgres' && PG_ADMIN_URL !== undefined));

/** Goal of docs/performance.md: at least this share of the bare server's throughput… */
const GOAL_RATIO = 0.4;
/** …with a p99 latency below this many milliseconds. */
const GOAL_P99_MS = 20;

interface Scenario {
  /** For BENCH_ONLY. */
  id: string;
  name: string;
  path: string;
  /** Shown for comparison only; the goal applies to the API endpoints. */
  reference?: boolean;
}

interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** The server's CPU time (all its threads) per request, in microseconds: steadier than req/s on a busy machine. */
  cpuUsPerRequest: number | undefined;
}

interface Row {
  scenario: Scenario;
  bytes: number;
  api: Measurement;
  bare: Measurement;
}

function log(message: string) {
  process.stderr.write(`[bench] ${message}\n`);
}

/** The environment of a child: ours without any service setting, plus the given ones. */
function spawnLogged(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr?.on('data', (d: Buffer) => process.stderr.write(`[child] ${d}`));
  return child;
}

async function measure(
  url: string,
  headers: Record<string, string>,
  duration: number,
  serverPid?: number,
): Promise<Measurement> {
  const cpuBefore = processCpuMs(serverPid);
  const result = await autocannon({ url, connections: CONNECTIONS, duration, headers, pipelining: 1 });
  const cpuAfter = processCpuMs(serverPid);
  if (result.errors || result.timeouts || result.non2xx) {
    throw new Error(
      `${url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx responses`,
    );
  }
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    cpuUsPerRequest:
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : ((cpuAfter - cpuBefore) * 1000) / result.requests.total,
  };
}

interface PreparedDatabase {
  env: Record<string, string>;
  seed: SeedResult;
  seedSeconds: number;
  cleanup(): Promise<void>;
}

async function prepareDatabase(dialect: Dialect, dataDir: string): Promise<PreparedDatabase> {
  const { env, database, drop } = await childDatabase(dialect, dataDir, {
    pgAdminUrl: PG_ADMIN_URL,
    prefix: 'minutes_bench',
  });
  const started = performance.now();
  const seed = await seedNotes(database, NOTES);
  // Autovacuum would analyze the bulk load soon after; do it now so plans match a settled database.
  if (dialect === 'postgres') await sql`ANALYZE`.execute(database.db);
  const seedSeconds = (performance.now() - started) / 1000;
  await database.close();
  return { env, seed, seedSeconds, cleanup: drop };
}

async function benchDialect(
  dialect: Dialect,
): Promise<{ rows: Row[]; seedSeconds: number; profile?: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `minutes-bench-${dialect}-`));
  const children: ChildProcess[] = [];
  log(`${dialect}: seeding ${NOTES} notes…`);
  const db = await prepareDatabase(dialect, dataDir);
  log(`${dialect}: seeded in ${db.seedSeconds.toFixed(1)} s`);
  try {
    const port = await freePort();
    const profileDir = path.join(dataDir, 'profile');
    const server = spawnLogged(
      [
        ...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
        'bin/minutes.js',
        'serve',
        '--no-worker',
      ],
      childEnv({
        ...db.env,
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '0',
        WORKER: 'false',
      }),
    );
    children.push(server);
    const base = `http://127.0.0.1:${port}`;
    await waitForReady(base, server);

    const filterTag = 'planning';
    const scenarios: Scenario[] = [
      // Reference: the HTTP stack alone (request id, routing, JSON), no key check, no query.
      { id: 'health', name: 'health check', path: '/healthz', reference: true },
      { id: 'list', name: 'list notes', path: '/v1/notes?per_page=20' },
      {
        id: 'filter',
        name: 'list notes, filtered',
        path: `/v1/notes?tag=${filterTag}&from=2026-03-01&to=2026-05-31`,
      },
      { id: 'get', name: 'get note', path: `/v1/notes/${db.seed.typicalNoteId}` },
    ].filter((s) => ONLY === undefined || ONLY.includes(s.id));
    const headers = { authorization: `Bearer ${db.seed.liveKey}` };

    // The bytes the real server returns, once, as the bare server's answers.
    const fixtures: Record<string, { status: number; contentType: string; bodyBase64: string }> = {};
    const sizes = new Map<string, number>();
    for (const s of scenarios) {
      const res = await fetch(base + s.path, { headers });
      const body = Buffer.from(await res.arrayBuffer());
      if (res.status !== 200) throw new Error(`${s.path}: ${res.status} ${body.toString()}`);
      const parsed = JSON.parse(body.toString()) as { data?: unknown[]; meta?: { total: number } };
      if (parsed.data && parsed.data.length === 0)
        throw new Error(`${s.path}: no results; the benchmark needs data`);
      if (parsed.meta) log(`${dialect}: ${s.path} → ${parsed.meta.total} matches, ${body.length} bytes`);
      fixtures[s.path] = {
        status: res.status,
        contentType: res.headers.get('content-type') ?? 'application/json',
        bodyBase64: body.toString('base64'),
      };
      sizes.set(s.path, body.length);
    }
    const fixtureFile = path.join(dataDir, 'fixtures.json');
    fs.writeFileSync(fixtureFile, JSON.stringify(fixtures));
    const bare = spawnLogged(['--import', 'tsx', 'bench/api/bare-server.ts', fixtureFile], childEnv({}));
    children.push(bare);
    const barePort = await new Promise<number>((resolve, reject) => {
      bare.stdout!.setEncoding('utf8').on('data', (d: string) => {
        const m = /listening (\d+)/.exec(d);
        if (m) resolve(Number(m[1]));
      });
      bare.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
    });
    const bareBase = `http://127.0.0.1:${barePort}`;

    const rows: Row[] = [];
    for (const s of scenarios) {
      log(`${dialect}: ${s.name}: Minutes…`);
      await measure(base + s.path, headers, WARMUP);
      const api = await measure(base + s.path, headers, DURATION, server.pid);
      log(`${dialect}: ${s.name}: bare node:http…`);
      await measure(bareBase + s.path, headers, WARMUP);
      const bareResult = await measure(bareBase + s.path, headers, DURATION, bare.pid);
      rows.push({ scenario: s, bytes: sizes.get(s.path)!, api, bare: bareResult });
      log(
        `${dialect}: ${s.name}: ${api.rps.toFixed(0)} req/s (p99 ${api.p99} ms, ${cpu(api)} CPU µs/req) vs bare ` +
          `${bareResult.rps.toFixed(0)} req/s (${cpu(bareResult)} CPU µs/req)`,
      );
    }
    await stopChild(bare);
    await stopChild(server);
    let profile: string | undefined;
    if (PROFILE) {
      const file = mainThreadProfile(profileDir);
      if (file) {
        const kept = path.join(os.tmpdir(), `minutes-bench-${dialect}-${Date.now()}.cpuprofile`);
        fs.copyFileSync(file, kept);
        profile = `CPU profile: ${kept}\n\n${summarizeProfile(kept)}`;
      }
    }
    return { rows, seedSeconds: db.seedSeconds, profile };
  } finally {
    for (const child of children) await stopChild(child);
    await db.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const meetsGoal = (r: Row) => r.api.rps / r.bare.rps >= GOAL_RATIO && r.api.p99 < GOAL_P99_MS;

const formatBytes = (n: number) => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KB`);

const ms = (v: number) => (Number.isInteger(v) ? `${v}` : v.toFixed(1));

const cpu = (m: Measurement) => (m.cpuUsPerRequest === undefined ? '–' : m.cpuUsPerRequest.toFixed(0));

function markdownTable(rows: Row[]): string {
  const lines = [
    '| endpoint | body | Minutes req/s | p50 ms | p99 ms | CPU µs/req | bare req/s | bare p50 ms | bare p99 ms | bare CPU µs/req | ratio | goal |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|',
  ];
  for (const r of rows) {
    const ratio = r.api.rps / r.bare.rps;
    const goal = r.scenario.reference ? 'reference' : meetsGoal(r) ? 'met' : 'missed';
    lines.push(
      `| \`GET ${r.scenario.path.replace(/note_[0-9A-Za-z]{24}/, ':id')}\` | ${formatBytes(r.bytes)} | ` +
        `${r.api.rps.toFixed(0)} | ${ms(r.api.p50)} | ${ms(r.api.p99)} | ${cpu(r.api)} | ${r.bare.rps.toFixed(0)} | ` +
        `${ms(r.bare.p50)} | ${ms(r.bare.p99)} | ${cpu(r.bare)} | ${(ratio * 100).toFixed(0)} % | ${goal} |`,
    );
  }
  return lines.join('\n');
}

function machineFacts(): string {
  const cpus = os.cpus();
  return (
    `${os.availableParallelism()} CPUs (nproc; ${cpus[0]?.model.trim() ?? 'unknown model'}), ` +
    `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}, ` +
    `load average ${os.loadavg()[0]!.toFixed(1)} at the end of the run`
  );
}

function resultSection(dialect: Dialect, rows: Row[], seedSeconds: number): string {
  const title = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  return [
    `### ${title} (${new Date().toISOString().slice(0, 10)})`,
    '',
    `Machine: ${machineFacts()}. ${NOTES.toLocaleString('en-US')} notes in one account (seeded in ` +
      `${seedSeconds.toFixed(0)} s), ${CONNECTIONS} connections, ${DURATION} s per run after a ${WARMUP} s warm-up, ` +
      'autocannon, server and baseline on the same machine.',
    '',
    `Reproduce: \`${dialect === 'sqlite' ? 'npm run bench:api' : 'BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:api'}\``,
    '',
    markdownTable(rows),
  ].join('\n');
}

/** Replaces the section between `<!-- bench:api:<dialect> -->` markers, or appends one. */
function writeDocs(dialect: Dialect, section: string): void {
  const file = path.join(ROOT, 'docs/performance.md');
  const start = `<!-- bench:api:${dialect}:start -->`;
  const end = `<!-- bench:api:${dialect}:end -->`;
  const block = `${start}\n${section}\n${end}`;
  let text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Performance\n';
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  text =
    a >= 0 && b > a
      ? text.slice(0, a) + block + text.slice(b + end.length)
      : `${text.trimEnd()}\n\n${block}\n`;
  fs.writeFileSync(file, text);
  // Biome also formats Markdown (`npm run lint` checks it): pad the tables the way it wants them.
  const formatted = spawnSync(
    process.execPath,
    [path.join(ROOT, 'node_modules/@biomejs/biome/bin/biome'), 'format', '--write', file],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  if (formatted.status !== 0) log(`biome format failed on docs/performance.md:\n${formatted.stderr}`);
  log(`wrote ${dialect} results into docs/performance.md`);
}

log(
  `dialects: ${DIALECTS.join(', ')}${PG_ADMIN_URL ? '' : ' (set BENCH_DATABASE_URL or TEST_DATABASE_URL for PostgreSQL)'}`,
);
let missed = false;
for (const dialect of DIALECTS) {
  const { rows, seedSeconds, profile } = await benchDialect(dialect);
  const section = resultSection(dialect, rows, seedSeconds);
  process.stdout.write(`\n${section}\n\n`);
  if (profile) process.stdout.write(`${profile}\n`);
  if (process.env.BENCH_WRITE_DOCS !== '0') writeDocs(dialect, section);
  if (dialect === 'sqlite' && rows.some((r) => !r.scenario.reference && !meetsGoal(r))) {
    missed = true;
  }
}
if (missed) {
  log(
    `goal missed on SQLite (≥ ${GOAL_RATIO * 100} % of bare throughput with p99 < ${GOAL_P99_MS} ms); BENCH_PROFILE=1 shows where the time goes`,
  );
}
