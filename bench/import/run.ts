import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yazl from 'yazl';
import { loadConfig } from '../../src/config.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createScratchDatabase } from '../../src/db/scratch-database.ts';
import { createDeps } from '../../src/deps.ts';
import { createAccount } from '../../src/features/accounts/accounts.service.ts';
import { type Actor, SCOPES } from '../../src/features/api-keys/scopes.ts';
import { importExport } from '../../src/features/imports/import-export.service.ts';
import { EXPORT_READ_LIMITS } from '../../src/features/imports/import-limits.ts';
import { getImport, startImport } from '../../src/features/imports/import-run.service.ts';
import { readZipExport } from '../../src/features/imports/read-export.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { mulberry32 } from '../../src/lib/prng.ts';
import { importViaServer } from './via-server.ts';

/**
 * `npm run bench:import`: a Limitless export of IMPORT_BENCH_LIFELOGS lifelogs (10,000 by default; synthetic, in
 * the export's format: 20–60 utterances of 2–4 speakers and two headings each) is written as a ZIP, imported
 * (read entry by entry, parsed in processing threads, stored) and then processed and indexed by the job worker
 * in this process, as `minutes import --process` does. Reports the time of each phase, lifelogs per minute and
 * the process's peak resident memory, sampled every 100 ms.
 *
 * SQLite in a temp directory by default; BENCH_DATABASE_URL=postgres://… runs against a throwaway PostgreSQL
 * database created beside the one named. IMPORT_BENCH_VIA=api imports through the path of POST /v1/imports (the
 * upload kept, its steps run as jobs of the queue beside the notes' processing) instead of calling importExport.
 * The search engine is made ready before the clock starts (its first start builds the sentence model, kept in
 * MODELS_DIR, by default a folder shared by runs); EMBEDDER is passed through to compare embedders.
 * IMPORT_BENCH_VIA=server sends the export to the built server (`npm run build` first) and reads its API
 * throughout (via-server.ts).
 */

const WORDS = (
  'we should ship the beta next week if the tests pass and the pricing page is ready ' +
  'can you send the draft to the team by friday the customer asked about the invoice ' +
  'I will follow up with legal about the contract and book a room for the review'
).split(' ');

function lifelog(i: number, random: () => number): { name: string; text: string } {
  const start = Date.UTC(2025, 0, 1) + i * 3_600_000;
  const d = new Date(start);
  const pad = (n: number) => String(n).padStart(2, '0');
  const name = `lifelogs/${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}_${pad(d.getUTCHours())}h00m00s_Conversation-${i}.md`;
  const lines = [`# Conversation ${i}`, '', `## Topic ${i % 17}`, ''];
  const utterances = 20 + Math.floor(random() * 40);
  const speakers = 2 + Math.floor(random() * 3);
  let t = start;
  for (let u = 0; u < utterances; u++) {
    if (u === Math.floor(utterances / 2)) lines.push('', `### Follow-up ${i % 11}`, '');
    const words = Array.from(
      { length: 6 + Math.floor(random() * 18) },
      () => WORDS[Math.floor(random() * WORDS.length)],
    );
    const end = t + words.length * 350;
    lines.push(`> [${1 + Math.floor(random() * speakers)}](#startMs=${t}&endMs=${end}): ${words.join(' ')}.`);
    t = end + 300;
  }
  return { name, text: `${lines.join('\n')}\n` };
}

async function writeExport(file: string, n: number) {
  const zip = new yazl.ZipFile();
  const random = mulberry32(31);
  for (let i = 0; i < n; i++) {
    const { name, text } = lifelog(i, random);
    zip.addBuffer(Buffer.from(text), name);
  }
  zip.end();
  await new Promise<void>((resolve, reject) => {
    const out = fs.createWriteStream(file);
    out.on('error', reject);
    out.on('close', resolve);
    zip.outputStream.on('error', reject);
    zip.outputStream.pipe(out);
  });
}

async function main() {
  const n = Number(process.env.IMPORT_BENCH_LIFELOGS ?? 10_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-bench-import-'));
  const archive = path.join(dataDir, 'limitless-export.zip');
  await writeExport(archive, n);
  if (process.env.IMPORT_BENCH_VIA === 'server') {
    const result = await importViaServer({
      archive,
      dataDir,
      lifelogs: n,
      dialect: process.env.BENCH_DATABASE_URL ? 'postgres' : 'sqlite',
      modelsDir: process.env.MODELS_DIR ?? path.join(os.tmpdir(), 'minutes-test-models'),
    });
    console.log(JSON.stringify(result, null, 2));
    fs.rmSync(dataDir, { recursive: true, force: true });
    return;
  }
  const admin = process.env.BENCH_DATABASE_URL;
  const scratch = admin ? await createScratchDatabase(admin, 'minutes_bench') : undefined;
  const config = loadConfig({
    DATA_DIR: dataDir,
    WORKER: 'false',
    LOG_LEVEL: 'silent',
    ...(process.env.JOB_CONCURRENCY ? { JOB_CONCURRENCY: process.env.JOB_CONCURRENCY } : {}),
    MODELS_DIR: process.env.MODELS_DIR ?? path.join(os.tmpdir(), 'minutes-test-models'),
    ...(process.env.EMBEDDER ? { EMBEDDER: process.env.EMBEDDER } : {}),
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
  });
  const via = process.env.IMPORT_BENCH_VIA === 'api' ? 'api' : 'service';
  const deps = createDeps(config, { logger: createLogger('silent') });
  await migrate(deps.db, deps.dialect);
  const account = await createAccount(deps, { email: `bench-${Date.now()}@example.com` });
  const actor: Actor = { accountId: account.id, mode: 'live', scopes: new Set(SCOPES), keyId: 'bench' };

  const warming = performance.now();
  await deps.search.engine();
  const warmupS = Math.round((performance.now() - warming) / 100) / 10;

  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 100);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let counts: { imported: number; failed: number };
  if (via === 'api') {
    // As POST /v1/imports receives it: the upload is a temp file the import takes over.
    const upload = path.join(dataDir, 'upload.zip');
    fs.copyFileSync(archive, upload);
    const started = await startImport(
      deps,
      actor,
      { path: upload, size: fs.statSync(upload).size, sha256: '', filename: 'limitless-export.zip' },
      { me: 'Sam' },
    );
    counts = { imported: 0, failed: 0 };
    // The import's steps and the notes' processing share the queue: "imported" is when its last step ran.
    for (;;) {
      const ran = await runDueJobs(deps, { lanes: deps.config.worker.concurrency });
      const view = await getImport(deps, actor, started.id);
      if (view.status !== 'running') {
        counts = { imported: view.imported, failed: view.failed };
        break;
      }
      if (ran === 0) throw new Error('the import stopped without finishing');
    }
  } else {
    const outcomes = await importExport(deps, actor, readZipExport(archive, EXPORT_READ_LIMITS), {
      me: 'Sam',
    });
    counts = {
      imported: outcomes.filter((o) => o.outcome === 'imported').length,
      failed: outcomes.filter((o) => o.outcome === 'failed').length,
    };
  }
  const imported = performance.now();
  let jobs = 0;
  for (;;) {
    const ran = await runDueJobs(deps, { lanes: deps.config.worker.concurrency });
    if (ran === 0) break;
    jobs += ran;
  }
  const processed = performance.now();
  const cpu = process.cpuUsage(cpuBefore);
  clearInterval(sampler);
  const ready = await deps.db
    .selectFrom('notes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', account.id)
    .where('status', '=', 'ready')
    .executeTakeFirstOrThrow();
  const minutes = (processed - started) / 60_000;
  const result = {
    lifelogs: n,
    archive_bytes: fs.statSync(archive).size,
    via,
    ...counts,
    ready: Number(ready.n),
    jobs,
    import_s: Math.round((imported - started) / 100) / 10,
    process_and_index_s: Math.round((processed - imported) / 100) / 10,
    total_s: Math.round((processed - started) / 100) / 10,
    lifelogs_per_minute: Math.round(n / minutes),
    // All threads of the process (getrusage): the work per lifelog, whatever else runs on the machine.
    cpu_s_per_lifelog: Math.round(((cpu.user + cpu.system) / 1e6 / n) * 1000) / 1000,
    peak_rss_mb: Math.round(peakRss / 1024 / 1024),
    search_warmup_s: warmupS,
    embedder: config.search.embedder.provider,
    dialect: deps.dialect,
  };
  console.log(JSON.stringify(result, null, 2));
  await deps.close();
  await scratch?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

await main();
