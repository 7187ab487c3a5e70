import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createScratchDatabase } from '../../src/db/scratch-database.ts';
import { createDeps } from '../../src/deps.ts';
import { createAccount } from '../../src/features/accounts/accounts.service.ts';
import { type Actor, SCOPES } from '../../src/features/api-keys/scopes.ts';
import { analyzeTranscript } from '../../src/features/processing/analyze-builtin.ts';
import { createRecordingFromTranscript } from '../../src/features/recordings/recordings.service.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { loadMeeting, meetingNames, toSegments } from './qmsum.ts';

/**
 * `npm run bench:ingest`: every QMSum meeting (162, ≈ 9,000 words each) ingested through the recordings service
 * (JSON transcript → recording, note, segments, events, job) and processed by the job worker with the builtin
 * analyzer, one meeting after another in this one process (one core). Reports meetings per minute, the time
 * per meeting, and the analysis alone (no database) against the meeting's length.
 *
 * SQLite in a temp directory by default; BENCH_DATABASE_URL=postgres://… runs against PostgreSQL instead, in a
 * throwaway database created beside the one named (which is only used to create and drop it).
 */

const WORDS_PER_MINUTE = 150;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-bench-ingest-'));
  // PostgreSQL: a throwaway database next to the one named, created now and dropped at the end.
  const admin = process.env.BENCH_DATABASE_URL;
  const scratch = admin ? await createScratchDatabase(admin, 'minutes_bench') : undefined;
  const databaseUrl = scratch?.url;
  const config = loadConfig({
    DATA_DIR: dataDir,
    WORKER: 'false',
    LOG_LEVEL: 'silent',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  // The longest meetings exceed the default transcript limit; a failed job is not retried here.
  const deps = createDeps(
    {
      ...config,
      maxTranscriptBytes: config.maxTranscriptBytes * 4,
      worker: { ...config.worker, maxAttempts: 1 },
    },
    { logger: createLogger('silent') },
  );
  const database = deps;
  await migrate(database.db, database.dialect);
  const account = await createAccount(deps, { email: `bench-${Date.now()}@example.com` });
  const actor: Actor = { accountId: account.id, mode: 'live', scopes: new Set(SCOPES), keyId: 'bench' };

  const names = meetingNames().slice(0, Number(process.env.BENCH_LIMIT ?? Number.POSITIVE_INFINITY));
  const rows: {
    name: string;
    words: number;
    minutes: number;
    ingestMs: number;
    processMs: number;
    analysisMs: number;
  }[] = [];
  const started = performance.now();
  for (const [i, name] of names.entries()) {
    const segments = toSegments(loadMeeting(name).turns);
    const words = segments.reduce((n, s) => n + s.text.split(/\s+/).filter(Boolean).length, 0);
    const t0 = performance.now();
    const accepted = await createRecordingFromTranscript(deps, actor, {
      segments,
      created_at: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
    });
    const t1 = performance.now();
    const ran = await runDueJobs(deps);
    const t2 = performance.now();
    if (ran !== 1) throw new Error(`${name}: expected one job, ran ${ran}`);
    const note = await database.db
      .selectFrom('notes')
      .select(['status', 'failure_reason'])
      .where('id', '=', accepted.note_id)
      .executeTakeFirstOrThrow();
    if (note.status !== 'ready')
      throw new Error(`${name}: note ended ${note.status}: ${note.failure_reason}`);
    // The analysis alone, on the same input, without the database around it.
    const speakers = [...new Set(segments.map((s) => s.speaker))].map((label) => ({ label, name: label }));
    const a0 = performance.now();
    analyzeTranscript({ segments, speakers, createdAt: '2026-01-01T00:00:00.000Z' });
    const analysisMs = performance.now() - a0;
    rows.push({
      name,
      words,
      minutes: words / WORDS_PER_MINUTE,
      ingestMs: t1 - t0,
      processMs: t2 - t1,
      analysisMs,
    });
    if (process.stderr.isTTY) process.stderr.write(`\r${i + 1}/${names.length} ${name}      `);
  }
  const elapsedMs = performance.now() - started;
  if (process.stderr.isTTY) process.stderr.write('\n');

  const events = await database.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', account.id)
    .executeTakeFirstOrThrow();
  await database.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  await scratch?.drop();

  const total = rows.map((r) => r.ingestMs + r.processMs);
  const analysis = rows.map((r) => r.analysisMs);
  const hourLong = rows.filter((r) => r.minutes >= 50 && r.minutes <= 70);
  const longest = rows.reduce((a, b) => (b.words > a.words ? b : a));
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  const lines = [
    `bench:ingest — ${rows.length} QMSum meetings, ${database.dialect}, builtin analyzer, Node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'}`,
    `  words per meeting: mean ${(rows.reduce((n, r) => n + r.words, 0) / rows.length).toFixed(0)}, max ${longest.words} (${longest.name}, ≈ ${longest.minutes.toFixed(0)} min at ${WORDS_PER_MINUTE} wpm)`,
    `  wall time ${(elapsedMs / 1000).toFixed(1)} s → ${((rows.length / elapsedMs) * 60_000).toFixed(1)} meetings/minute (ingest + processing, sequential, one process)`,
    `  per meeting, ingest + processing: p50 ${ms(percentile(total, 50))}, p95 ${ms(percentile(total, 95))}, max ${ms(Math.max(...total))}`,
    `    ingest (HTTP-less service call, one transaction): p50 ${ms(
      percentile(
        rows.map((r) => r.ingestMs),
        50,
      ),
    )}, p95 ${ms(
      percentile(
        rows.map((r) => r.ingestMs),
        95,
      ),
    )}`,
    `    processing job (read, analyze, write items/highlights/events): p50 ${ms(
      percentile(
        rows.map((r) => r.processMs),
        50,
      ),
    )}, p95 ${ms(
      percentile(
        rows.map((r) => r.processMs),
        95,
      ),
    )}`,
    `  analysis alone: p50 ${ms(percentile(analysis, 50))}, p95 ${ms(percentile(analysis, 95))}, max ${ms(Math.max(...analysis))}; longest meeting ${ms(longest.analysisMs)}`,
    `  meetings of 50–70 min (${hourLong.length}): analysis p95 ${
      hourLong.length
        ? ms(
            percentile(
              hourLong.map((r) => r.analysisMs),
              95,
            ),
          )
        : '-'
    }, max ${hourLong.length ? ms(Math.max(...hourLong.map((r) => r.analysisMs))) : '-'}`,
    `  events written: ${events.n}`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
  if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify(rows, null, 2));
}

await main();
