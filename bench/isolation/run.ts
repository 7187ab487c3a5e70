/**
 * `npm run bench:isolation`: does ingest slow down everyone else? One server (the esbuild bundle `npm start` runs,
 * worker in-process, SQLite) is read at a steady rate by one account (`GET /v1/notes`), first idle, then while a
 * second account ingests QMSum meetings and adversarial transcripts (bench/isolation/adversarial.ts) as fast as
 * the pipeline takes them. Reports the reader's p50/p99/max in both phases of the same run, the adversarial
 * transcripts' analysis time (parse + analysis + chunking, timed in this process, one after another), and the
 * state every ingested note ended in. Writes the figures into docs/performance.md (section "Isolation").
 *
 * Knobs (environment): BENCH_RATE reads per second (50), BENCH_IDLE_SECONDS (20), BENCH_INGEST_SECONDS (60),
 * BENCH_IN_FLIGHT notes posted and not yet finished (3), BENCH_THREADS (PROCESSING_THREADS of the server; its
 * default when unset), BENCH_DIALECTS (sqlite,postgres; PostgreSQL with BENCH_DATABASE_URL or TEST_DATABASE_URL), BENCH_PROFILE=1 (CPU profile of the server's main thread; BENCH_PROFILE_OUT=path/prefix keeps it), BENCH_NODE_FLAGS (more flags for the server's node, e.g. --trace-gc), BENCH_WRITE_DOCS=0 (do not touch docs/performance.md).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dialect } from '../../src/db/schema.ts';
import { createAccount } from '../../src/features/accounts/accounts.service.ts';
import { createApiKey } from '../../src/features/api-keys/api-keys.service.ts';
import { runPipeline } from '../../test/processing/adversarial-text.ts';
import { mainThreadProfile, summarizeProfile } from '../api/profile-summary.ts';
import { seedNotes } from '../api/seed.ts';
import { loadMeeting, meetingNames } from '../ingest/qmsum.ts';
import { childDatabase, childEnv, freePort, stopChild, waitForReady } from '../lib/child-server.ts';
import { benchDeps } from '../search/setup.ts';
import { adversarialTranscripts } from './adversarial.ts';
import { type Latencies, percentile, readSteadily } from './steady-reader.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RATE = Number(process.env.BENCH_RATE ?? 50);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 20);
const INGEST_SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 60);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 3);
const THREADS = process.env.BENCH_THREADS;
const PG_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres')
  .split(',')
  .map((d) => d.trim())
  .filter((d): d is Dialect => d === 'sqlite' || (d === 'postgres' && PG_ADMIN_URL !== undefined));
const MAX_TRANSCRIPT_BYTES = 2_097_152;
/** Goals of issue 11. */
const GOAL_P99_MS = 50;
const GOAL_RATIO = 2;
const GOAL_ANALYSIS_MS = 10_000;
/** How long the notes still processing at the end of the ingest phase are waited for. */
const DRAIN_MS = 600_000;

function log(message: string) {
  process.stderr.write(`[bench] ${message}\n`);
}

interface Item {
  name: string;
  adversarial: boolean;
  body: string;
  bytes: number;
}

/** A QMSum meeting as a `Speaker: text` transcript, cut to the size limit. */
function meetingTranscript(name: string): string {
  const text = loadMeeting(name)
    .turns.filter((t) => t.content.trim())
    .map((t) => `${t.speaker.trim() || 'Speaker'}: ${t.content.replace(/\s+/g, ' ').trim()}`)
    .join('\n');
  return Buffer.from(text)
    .subarray(0, MAX_TRANSCRIPT_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}

interface AnalysisTiming {
  name: string;
  bytes: number;
  ms: number;
}

/** Parse + analysis + chunking of each adversarial transcript, one after another, in this process. */
function timeAdversarialAnalysis(): AnalysisTiming[] {
  const out: AnalysisTiming[] = [];
  for (const { name, transcript } of adversarialTranscripts(MAX_TRANSCRIPT_BYTES)) {
    const started = performance.now();
    runPipeline(transcript);
    const ms = performance.now() - started;
    out.push({ name, bytes: Buffer.byteLength(transcript), ms });
    log(`analysis of ${name}: ${ms.toFixed(0)} ms`);
  }
  return out;
}

interface Ingested {
  item: Item;
  id: string;
  postedAt: number;
  postMs: number;
  endedAt?: number;
  status?: string;
  reason?: string | null;
}

async function main() {
  log('building the bundle (as npm start does)…');
  const build = spawnSync(process.execPath, ['scripts/build.js'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('build failed');

  log('timing the analysis of the adversarial transcripts…');
  // BENCH_SKIP_ANALYSIS=1 skips this part (while looking at the API figures alone).
  const timings = process.env.BENCH_SKIP_ANALYSIS === '1' ? [] : timeAdversarialAnalysis();

  const sections: string[] = [];
  for (const dialect of DIALECTS) sections.push(await runDialect(dialect));
  const report = [header(), '', ...sections, formatAnalysis(timings)].join('\n');
  process.stdout.write(`${report}\n`);
  if (process.env.BENCH_WRITE_DOCS !== '0') writeDocs(report);
}

async function runDialect(dialect: Dialect): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `minutes-bench-isolation-${dialect}-`));
  const children: ChildProcess[] = [];
  const { env, database, drop } = await childDatabase(dialect, dataDir, {
    pgAdminUrl: PG_ADMIN_URL,
    prefix: 'minutes_bench',
  });
  try {
    const reader = await seedNotes(database, 1000);
    const deps = benchDeps(database);
    const writerAccount = await createAccount(deps, { email: 'writer@example.com', name: 'Writer' });
    const writerKey = (
      await createApiKey(deps, { accountId: writerAccount.id, mode: 'live', name: 'writer' })
    ).key;

    const port = await freePort();
    const profileDir = path.join(dataDir, 'profile');
    const profile = process.env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
    const server = spawn(
      process.execPath,
      [...profile, ...nodeFlags, '--enable-source-maps', 'dist/main.js'],
      {
        cwd: ROOT,
        env: childEnv({
          ...env,
          DATA_DIR: dataDir,
          MODELS_DIR: path.join(ROOT, 'data/models'),
          HOST: '127.0.0.1',
          PORT: String(port),
          LOG_LEVEL: 'warn',
          RATE_LIMIT_PER_MINUTE: '0',
          MAX_TRANSCRIPT_BYTES: String(MAX_TRANSCRIPT_BYTES),
          ...(THREADS ? { PROCESSING_THREADS: THREADS } : {}),
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    // LOG_LEVEL=warn: what the server logs is a warning or an error, shown as it comes.
    server.stdout!.on('data', (d: Buffer) => process.stderr.write(`[server] ${d}`));
    server.stderr!.on('data', (d: Buffer) => process.stderr.write(`[server] ${d}`));
    children.push(server);
    const base = `http://127.0.0.1:${port}`;
    await waitForReady(base, server);
    const listUrl = `${base}/v1/notes?per_page=20`;

    // The bodies are serialised before the clock starts, so this process does little work while it measures.
    const adversarial = adversarialTranscripts(MAX_TRANSCRIPT_BYTES);
    const meetings = meetingNames();
    const items: Item[] = [];
    for (let i = 0; i < Math.max(adversarial.length, 40); i++) {
      const a = adversarial[i % adversarial.length]!;
      items.push({
        name: a.name,
        adversarial: true,
        body: JSON.stringify({ transcript: a.transcript }),
        bytes: Buffer.byteLength(a.transcript),
      });
      const m = meetings[i % meetings.length]!;
      const transcript = meetingTranscript(m);
      items.push({
        name: `QMSum ${m}`,
        adversarial: false,
        body: JSON.stringify({ transcript }),
        bytes: Buffer.byteLength(transcript),
      });
    }

    log(`${dialect}: idle: GET /v1/notes at ${RATE}/s for ${IDLE_SECONDS} s…`);
    await readSteadily(listUrl, reader.liveKey, Math.min(3, IDLE_SECONDS), RATE);
    const idle = await readSteadily(listUrl, reader.liveKey, IDLE_SECONDS, RATE);
    log(
      `${dialect}: idle: p50 ${idle.p50.toFixed(1)} ms, p99 ${idle.p99.toFixed(1)} ms, max ${idle.max.toFixed(1)} ms`,
    );

    log(
      `${dialect}: ingest: the same reads for ${INGEST_SECONDS} s while notes are posted (${IN_FLIGHT} in flight)…`,
    );
    const ingested: Ingested[] = [];
    let stopIngest = false;
    const writer = (async () => {
      let next = 0;
      while (!stopIngest) {
        const open = ingested.filter((n) => !n.endedAt).length;
        if (open < IN_FLIGHT && next < items.length) {
          const item = items[next++]!;
          const t = performance.now();
          const res = await fetch(`${base}/v1/notes`, {
            method: 'POST',
            headers: { authorization: `Bearer ${writerKey}`, 'content-type': 'application/json' },
            body: item.body,
          });
          const answer = (await res.json()) as { id?: string };
          if (res.status !== 202 || !answer.id) {
            throw new Error(`POST ${item.name}: ${res.status} ${JSON.stringify(answer).slice(0, 500)}`);
          }
          ingested.push({ item, id: answer.id, postedAt: Date.now(), postMs: performance.now() - t });
          continue;
        }
        await pollStatuses(database, ingested);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const loaded = await readSteadily(listUrl, reader.liveKey, INGEST_SECONDS, RATE);
    stopIngest = true;
    await writer;
    log(
      `ingest: p50 ${loaded.p50.toFixed(1)} ms, p99 ${loaded.p99.toFixed(1)} ms, max ${loaded.max.toFixed(1)} ms`,
    );

    log(`waiting for the ${ingested.filter((n) => !n.endedAt).length} notes still processing…`);
    const drainUntil = Date.now() + DRAIN_MS;
    while (ingested.some((n) => !n.endedAt) && Date.now() < drainUntil) {
      await pollStatuses(database, ingested);
      await new Promise((r) => setTimeout(r, 500));
    }
    await stopChild(server);
    if (profile.length) {
      const file = mainThreadProfile(profileDir);
      if (file) log(`server CPU profile (main thread):\n${summarizeProfile(file, 25)}`);
      if (file && process.env.BENCH_PROFILE_OUT)
        fs.copyFileSync(file, `${process.env.BENCH_PROFILE_OUT}.${dialect}.cpuprofile`);
    }

    return formatApi(dialect, { idle, loaded, ingested });
  } finally {
    for (const child of children) await stopChild(child);
    await database.close();
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Notes' states read from the database (not through the API, which the reader is measuring). */
async function pollStatuses(
  database: Awaited<ReturnType<typeof childDatabase>>['database'],
  ingested: Ingested[],
): Promise<void> {
  const open = ingested.filter((n) => !n.endedAt);
  if (!open.length) return;
  const rows = await database.db
    .selectFrom('notes')
    .select(['id', 'status', 'failure_reason'])
    .where(
      'id',
      'in',
      open.map((n) => n.id),
    )
    .execute();
  const now = Date.now();
  for (const row of rows) {
    if (row.status === 'processing') continue;
    const note = open.find((n) => n.id === row.id)!;
    note.endedAt = now;
    note.status = row.status;
    note.reason = row.failure_reason;
  }
}

function header(): string {
  return `Run of ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} CPUs ${os.cpus()[0]?.model.trim() ?? ''}, Node ${process.version}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(
      ' / ',
    )} at the end (the machine is shared); PROCESSING_THREADS ${THREADS ?? 'default'}; ${RATE} reads/s.`;
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

function formatApi(
  dialect: Dialect,
  r: { idle: Latencies; loaded: Latencies; ingested: Ingested[] },
): string {
  const finished = r.ingested.filter((n) => n.endedAt);
  const byStatus = new Map<string, number>();
  for (const n of r.ingested)
    byStatus.set(n.status ?? 'processing', (byStatus.get(n.status ?? 'processing') ?? 0) + 1);
  const adversarial = r.ingested.filter((n) => n.item.adversarial);
  const qmsum = r.ingested.filter((n) => !n.item.adversarial);
  const worstWait = (list: Ingested[]) =>
    Math.max(0, ...list.filter((n) => n.endedAt).map((n) => (n.endedAt! - n.postedAt) / 1000));
  const postMs = r.ingested.map((n) => n.postMs).sort((a, b) => a - b);
  const p99Goal = r.loaded.p99 < GOAL_P99_MS && r.loaded.p99 < GOAL_RATIO * r.idle.p99;
  return [
    `**${dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}**: \`GET /v1/notes?per_page=20\` of another account (1,000 notes).`,
    '',
    '| phase | reads | errors | p50 | p99 | max |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    `| idle (${IDLE_SECONDS} s) | ${r.idle.count} | ${r.idle.errors} | ${ms(r.idle.p50)} | ${ms(r.idle.p99)} | ${ms(r.idle.max)} |`,
    `| under ingest (${INGEST_SECONDS} s) | ${r.loaded.count} | ${r.loaded.errors} | ${ms(r.loaded.p50)} | ${ms(r.loaded.p99)} | ${ms(r.loaded.max)} |`,
    '',
    `Goal p99 under ingest < ${GOAL_P99_MS} ms and < ${GOAL_RATIO}× idle p99 (${ms(GOAL_RATIO * r.idle.p99)}): ${p99Goal ? 'met' : 'not met'}.`,
    `Ingested during the phase: ${r.ingested.length} notes (${qmsum.length} QMSum meetings, ${adversarial.length} adversarial transcripts, ${(
      r.ingested.reduce((s, n) => s + n.item.bytes, 0) / 1e6
    ).toFixed(
      1,
    )} MB); POST /v1/notes p50 ${ms(percentile(postMs, 50))}, max ${ms(postMs.at(-1) ?? Number.NaN)}. End states: ${[
      ...byStatus,
    ]
      .map(([s, n]) => `${n} ${s}`)
      .join(
        ', ',
      )} (${finished.length} of ${r.ingested.length} terminal). Longest from POST to a terminal state: QMSum ${worstWait(qmsum).toFixed(1)} s, adversarial ${worstWait(adversarial).toFixed(1)} s (queueing included).`,
    ...[
      ...new Set(
        r.ingested.filter((n) => n.status === 'failed').map((n) => `- failed: ${n.item.name}: ${n.reason}`),
      ),
    ],
    '',
  ].join('\n');
}

function formatAnalysis(timings: AnalysisTiming[]): string {
  if (!timings.length) return '';
  const worst = timings.reduce((a, b) => (b.ms > a.ms ? b : a));
  return [
    `Adversarial transcripts (${timings.length}, each ≤ ${MAX_TRANSCRIPT_BYTES} bytes), parse + analysis + chunking in one thread, one after another:`,
    '',
    '| transcript | bytes | time |',
    '| --- | ---: | ---: |',
    ...timings.map((t) => `| ${t.name} | ${t.bytes} | ${ms(t.ms)} |`),
    '',
    `Worst case ${ms(worst.ms)} (${worst.name}); goal < ${GOAL_ANALYSIS_MS / 1000} s: ${worst.ms < GOAL_ANALYSIS_MS ? 'met' : 'not met'}.`,
  ].join('\n');
}

const START = '<!-- bench:isolation:start -->';
const END = '<!-- bench:isolation:end -->';

function writeDocs(report: string) {
  const file = path.join(ROOT, 'docs/performance.md');
  const doc = fs.readFileSync(file, 'utf8');
  const block = `${START}\n${report}\n${END}`;
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  const next =
    from >= 0 && to > from
      ? doc.slice(0, from) + block + doc.slice(to + END.length)
      : `${doc.trimEnd()}\n\n## Isolation\n\n\`npm run bench:isolation\` (bench/isolation/run.ts).\n\n${block}\n`;
  fs.writeFileSync(file, next);
  log('wrote docs/performance.md');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
