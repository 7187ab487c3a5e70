// The dashboard's notes page with 10,000 notes in the account (issue 14: interactive in < 1 s, ≤ 200 KB of
// compressed JS and CSS). Seeds a SQLite database with bench/api's data set, starts the server, signs in with
// Chromium and loads the first, a middle and the last page of the list and a tag filter, several times each.
// Reports the browser's navigation timing (response, DOM interactive, load event) as median and worst.
// Usage: npx tsx bench/dashboard/run.ts [notes=10000] [runs=15]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { migrate } from '../../src/db/migrate.ts';
import { completeSetup, createSetupLink } from '../../src/features/users/users.service.ts';
import { startServer } from '../../src/main.ts';
import { launchBrowser } from '../../test/helpers/chromium.ts';
import { seedNotes, TAGS } from '../api/seed.ts';
import { benchDeps } from '../search/setup.ts';

const NOTES = Number(process.argv[2] ?? 10_000);
const RUNS = Number(process.argv[3] ?? 15);
const PASSWORD = 'benchmark password';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-bench-dashboard-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  MODELS_DIR: path.join(os.tmpdir(), 'minutes-test-models'),
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  WORKER: 'false',
});
const database = openDatabase(config.database);
await migrate(database.db, database.dialect);
const started = performance.now();
const seed = await seedNotes(database, NOTES);
process.stderr.write(`seeded ${NOTES} notes in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
const setupDeps = benchDeps(database);
const { token } = await createSetupLink(setupDeps, seed.accountId);
const user = await completeSetup(setupDeps, { token, password: PASSWORD });
await database.close();

const server = await startServer(config, { drainMs: 500 });
const { context, close } = await launchBrowser();
try {
  const page = await context.newPage();
  await page.goto(`${server.url}/sign-in`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.url}/`);

  const lastPage = Math.ceil(NOTES / 20);
  const targets: [string, string][] = [
    ['first page', '/'],
    ['page 250 of 500', `/?page=${Math.ceil(lastPage / 2)}`],
    ['last page', `/?page=${lastPage}`],
    [`tag filter (${TAGS[0]})`, `/?tag=${encodeURIComponent(TAGS[0]!)}`],
  ];
  const rows: string[] = [];
  for (const [name, target] of targets) {
    const samples: { response: number; interactive: number; load: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      await page.goto(`${server.url}${target}`, { waitUntil: 'load' });
      samples.push(
        await page.evaluate(() => {
          const nav = (globalThis as any).performance.getEntriesByType('navigation')[0];
          return { response: nav.responseEnd, interactive: nav.domInteractive, load: nav.loadEventEnd };
        }),
      );
    }
    const stat = (key: 'response' | 'interactive' | 'load') => {
      const v = samples.map((s) => s[key]).sort((a, b) => a - b);
      return `${v[Math.floor(v.length / 2)]!.toFixed(0)} / ${v[v.length - 1]!.toFixed(0)}`;
    };
    rows.push(`| ${name} | ${stat('response')} | ${stat('interactive')} | ${stat('load')} |`);
  }
  const transfer = await page.evaluate(() =>
    (globalThis as any).performance
      .getEntriesByType('resource')
      .filter((r: any) => /\/assets\//.test(r.name))
      .reduce((sum: number, r: any) => sum + r.encodedBodySize, 0),
  );
  console.log(`${NOTES.toLocaleString('en-US')} notes, ${RUNS} loads each, ms median / worst, after sign-in`);
  console.log('| page | response end | DOM interactive | load event |');
  console.log('| --- | --- | --- | --- |');
  for (const row of rows) console.log(row);
  console.log(`JS + CSS transferred (compressed, first load): ${transfer} bytes`);
} finally {
  await close();
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
