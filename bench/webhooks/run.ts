/**
 * `npm run bench:webhooks`: webhook delivery throughput and latency against a local receiver, next to the
 * receiver's own maximum (a loop that POSTs directly with the same concurrency) measured in the same run.
 *
 *   npm run bench:webhooks                                   SQLite only
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:webhooks   SQLite and PostgreSQL
 *   BENCH_EVENTS=10000 BENCH_RATE=1000 BENCH_WRITE=0 …       events per phase, paced rate, skip docs/performance.md
 *
 * Phases per dialect: (1) burst: 10,000 events written up front, the worker started, time until the receiver
 * has them all = deliveries/s; (2) paced: 10,000 events written at BENCH_RATE/s while the worker runs
 * (not backlogged) = event-to-receipt latency p50/p99.
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import type { Dialect } from '../../src/db/schema.ts';
import { createDeps } from '../../src/deps.ts';
import { createAccount } from '../../src/features/accounts/accounts.service.ts';
import { recordEvent } from '../../src/features/events/events.ts';
import { startWebhookWorker } from '../../src/features/webhooks/webhook-worker.ts';
import { webhooksDb } from '../../src/features/webhooks/webhooks.tables.ts';
import { newId } from '../../src/lib/ids.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createTestDatabase } from '../../test/helpers/dialects.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const CONCURRENCY = Number(process.env.WEBHOOKS_CONCURRENCY ?? 32);
const WRITE = process.env.BENCH_WRITE !== '0';

interface Stats {
  count: number;
  unique: number;
  duplicates: number;
  first: number;
  last: number;
  latencies: number[];
}

/** The receiver process and a typed request/response over IPC. */
async function startReceiver(): Promise<{
  port: number;
  call<T>(type: string): Promise<T>;
  child: ChildProcess;
}> {
  const child = fork(path.join(ROOT, 'bench/webhooks/receiver.ts'), [], { execArgv: ['--import', 'tsx'] });
  const next = (type: string) =>
    new Promise<any>((resolve) => {
      const on = (m: { type: string }) => {
        if (m.type !== type) return;
        child.off('message', on);
        resolve(m);
      };
      child.on('message', on);
    });
  const { port } = await next('listening');
  return {
    port,
    child,
    call: async <T>(type: string) => {
      const reply = next(type);
      child.send({ type });
      return (await reply) as T;
    },
  };
}

function percentile(values: number[], p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A note.created payload of realistic size. */
function sampleData(i: number) {
  return {
    id: newId('note'),
    title: `Weekly sync ${i}`,
    summary: 'The team reviewed the budget, agreed on the hiring plan and set the offsite date.',
    created_at: new Date().toISOString(),
    duration_seconds: 1800,
    tags: ['weekly', 'planning'],
  };
}

/** The receiver's own maximum: POSTs straight from this process with the same concurrency and keep-alive. */
async function directBaseline(port: number, count: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let sent = 0;
  const started = performance.now();
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const body = Buffer.from(
        JSON.stringify({
          id: newId('event'),
          type: 'note.created',
          created_at: new Date().toISOString(),
          data: sampleData(sent),
        }),
      );
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/direct',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve());
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < count) {
        sent++;
        await post();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { perSecond: count / seconds, seconds };
}

async function waitFor(
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  count: number,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Only the count while waiting: shipping every latency over IPC each time would slow the receiver.
    const { unique } = await receiver.call<{ unique: number }>('count');
    if (unique >= count) return receiver.call<Stats>('stats');
    if (Date.now() > deadline)
      throw new Error(`only ${unique} of ${count} events arrived in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function benchDialect(dialect: Dialect, receiver: Awaited<ReturnType<typeof startReceiver>>) {
  const database = await createTestDatabase(dialect);
  const config = {
    ...loadConfig({
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOKS_CONCURRENCY: String(CONCURRENCY),
      // One account's deliveries: its cap (default 8) bounds the attempts in flight, not WEBHOOKS_CONCURRENCY.
      ...(process.env.WEBHOOKS_CONCURRENCY_PER_ACCOUNT
        ? { WEBHOOKS_CONCURRENCY_PER_ACCOUNT: process.env.WEBHOOKS_CONCURRENCY_PER_ACCOUNT }
        : {}),
      WORKER: 'false',
    }),
    database: database.database,
  };
  const deps = createDeps(config, { database: { db: database.db, dialect }, logger: createLogger('warn') });
  try {
    const account = await createAccount(deps, { email: `bench-${Date.now()}@example.com` });
    const space = { accountId: account.id, mode: 'live' as const };
    const now = new Date().toISOString();
    await webhooksDb(database.db)
      .insertInto('webhooks')
      .values({
        id: newId('webhook'),
        account_id: account.id,
        mode: 'live',
        url: `http://127.0.0.1:${receiver.port}/hook`,
        events: JSON.stringify(['note.created']),
        secret: 'whsec_bench_0123456789abcdef',
        active: 1,
        after_event_seq: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();

    // Phase 1: a backlog of EVENTS, then the worker: deliveries per second.
    await receiver.call('reset');
    for (let i = 0; i < EVENTS; i += 500) {
      await database.db.transaction().execute(async (trx) => {
        for (let j = i; j < Math.min(EVENTS, i + 500); j++)
          await recordEvent(trx, space, 'note.created', sampleData(j));
      });
    }
    const started = Date.now();
    let worker = startWebhookWorker(deps);
    const burst = await waitFor(receiver, EVENTS, 300_000);
    const burstSeconds = (burst.last - started) / 1000;
    await worker.stop();

    // Phase 2: EVENTS written at RATE per second while the worker runs: event-to-receipt latency.
    await receiver.call('reset');
    worker = startWebhookWorker(deps);
    await new Promise((r) => setTimeout(r, 200));
    const tick = 10;
    const perTick = Math.max(1, Math.round((RATE * tick) / 1000));
    let written = 0;
    const pacedStart = Date.now();
    while (written < EVENTS) {
      const due = Math.min(EVENTS, Math.floor(((Date.now() - pacedStart) / 1000) * RATE) + perTick);
      for (; written < due; written++) {
        await recordEvent(database.db, space, 'note.created', sampleData(written));
        // In-process wake, as the API does through deps.wakeWorker; PostgreSQL workers are woken by NOTIFY.
        if (dialect === 'sqlite') worker.wake();
      }
      await new Promise((r) => setTimeout(r, tick));
    }
    const paced = await waitFor(receiver, EVENTS, 120_000);
    const pacedSeconds = (Date.now() - pacedStart) / 1000;
    await worker.stop();
    return {
      dialect,
      deliveriesPerSecond: EVENTS / burstSeconds,
      burstSeconds,
      burstP50: percentile(burst.latencies, 50),
      burstP99: percentile(burst.latencies, 99),
      duplicates: burst.duplicates + paced.duplicates,
      pacedRate: EVENTS / pacedSeconds,
      p50: percentile(paced.latencies, 50),
      p99: percentile(paced.latencies, 99),
      max: Math.max(...paced.latencies),
    };
  } finally {
    await database.destroy();
  }
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main() {
  const dialects: Dialect[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
  const receiver = await startReceiver();
  try {
    await receiver.call('reset');
    await directBaseline(receiver.port, Math.min(2000, EVENTS)); // warm-up
    await receiver.call('reset');
    const baseline = await directBaseline(receiver.port, EVENTS);
    const direct = await receiver.call<Stats>('stats');
    console.log(`direct POST baseline: ${fmt(baseline.perSecond)} req/s`);
    const results = [];
    for (const dialect of dialects) {
      const r = await benchDialect(dialect, receiver);
      console.log(
        `${dialect}: ${fmt(r.deliveriesPerSecond)} deliveries/s (${fmt((100 * r.deliveriesPerSecond) / baseline.perSecond)}% of direct); ` +
          `paced ${fmt(r.pacedRate)}/s latency p50 ${r.p50} ms, p99 ${r.p99} ms; duplicates ${r.duplicates}`,
      );
      results.push(r);
    }
    const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
    const section = [
      '## Webhooks',
      '',
      `Measured ${new Date().toISOString().slice(0, 10)} with \`${process.env.TEST_DATABASE_URL ? 'TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres ' : ''}npm run bench:webhooks\` ` +
        `on ${os.cpus().length} × ${cpu}, Node ${process.version}; ${fmt(EVENTS)} events per phase, one webhook with a secret ` +
        `(both signatures computed), a local receiver in its own process answering 200 at once, worker concurrency ${CONCURRENCY} ` +
        '(`WEBHOOKS_CONCURRENCY`). The baseline is a loop in the same run that POSTs an event-sized body straight to the ' +
        'same receiver with the same concurrency and keep-alive.',
      '',
      '| | deliveries/s | % of direct POST | backlog drained in | event→receipt p50 / p99, not backlogged | duplicates |',
      '|---|---:|---:|---:|---:|---:|',
      `| direct POST baseline | ${fmt(baseline.perSecond)} | 100% | ${fmt(baseline.seconds, 2)} s | — | ${direct.duplicates} |`,
      ...results.map(
        (r) =>
          `| ${r.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'} worker | ${fmt(r.deliveriesPerSecond)} | ${fmt((100 * r.deliveriesPerSecond) / baseline.perSecond)}% | ` +
          `${fmt(r.burstSeconds, 2)} s | ${r.p50} / ${r.p99} ms (at ${fmt(r.pacedRate)} events/s) | ${r.duplicates} |`,
      ),
      '',
      '- deliveries/s: 10,000 events written before the worker starts (fan-out included), divided by the time until the ' +
        'receiver has the last one. Every event is claimed with a lease, signed, POSTed and recorded (delivery row + attempt row).',
      `- latency: ${fmt(EVENTS)} events written one per transaction at ${fmt(RATE)}/s while the worker runs; receipt time ` +
        "minus the event's `created_at`. SQLite: the writer wakes the in-process worker (as the API does through " +
        '`deps.wakeWorker`); PostgreSQL: the worker is woken by `NOTIFY` from the outbox trigger, as a separate worker ' +
        'process would be. Without a wake, latency is bounded by `WEBHOOKS_POLL_MS` (200 ms).',
      '- Reading the figures: a latency row whose achieved rate is below BENCH_RATE was backlogged (the writer and ' +
        'the worker share one SQLite connection; PostgreSQL commits of the writer wait ~3 ms for the WAL flush on ' +
        'this sandbox). The machine has 2 vCPUs shared by the bench, the receiver, PostgreSQL and other work; the ' +
        'baseline itself varied from ~3,400 to ~11,800/s between runs on 2026-11-23, so compare the ratios of one run.',
      '- What the worker does per cycle (see docs/webhooks.md, *The worker*): the outcomes of the attempts that ' +
        'finished since the last cycle and the claim of due deliveries with their webhook and event go together ' +
        '(SQLite: one transaction; PostgreSQL: one statement each, sent at once on two connections, two cycles in ' +
        'flight). A slot is free when its HTTP attempt ends. Fan-out alternates with delivery, 500 events at a time.',
      '- Before/after of that change, 2026-11-23, old and new code run back to back on a quiet moment of the ' +
        'machine (baselines 11,100–11,800/s): SQLite worker 3,136–3,200 → 3,663–3,705 deliveries/s (27–29% → 33%), ' +
        'PostgreSQL worker 1,532–1,834 → 2,545–2,653 (13–16% → 23–24%); SQLite latency p99 at 1,000 events/s ' +
        '53–859 ms → 22–29 ms. The goal of issue 5 (≥ 50%) is not met: see docs/webhooks.md, *Performance status*.',
      '',
    ].join('\n');
    console.log(`\n${section}`);
    if (WRITE) writeSection(section);
  } finally {
    await receiver.call('close').catch(() => {});
  }
}

/** Replaces the "## Webhooks" section of docs/performance.md (or appends it); other sections are left alone. */
function writeSection(section: string) {
  const file = path.join(ROOT, 'docs/performance.md');
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Performance\n';
  const start = current.search(/^## Webhooks\s*$/m);
  let next: string;
  if (start < 0) next = `${current.trimEnd()}\n\n${section}`;
  else {
    const rest = current.slice(start + 1);
    const end = rest.search(/^## /m);
    next = current.slice(0, start) + section + (end < 0 ? '' : `\n${rest.slice(end)}`);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, next.endsWith('\n') ? next : `${next}\n`);
  console.log(`wrote the Webhooks section of ${path.relative(process.cwd(), file)}`);
}

await main();
