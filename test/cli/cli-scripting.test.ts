import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, ROOT, runCli, runProcess } from './cli-process.ts';

/** `node bin/minutes.js …args` in another working directory, with the given environment. */
function runIn(cwd: string, args: string[], env: NodeJS.ProcessEnv) {
  return runProcess(process.execPath, [BIN, ...args], { cwd, env });
}

describe('the CLI in scripts', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-cli-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('says loudly when a command creates a new database, and where its DATA_DIR came from', async () => {
    const dataDir = tempDir();
    const first = await runCli(['keys', 'create', '--mode', 'live'], { DATA_DIR: dataDir });
    expect(first.code).toBe(0);
    expect(first.stdout.trim()).toMatch(/^svc_sk_live_\w+$/);
    expect(first.stderr).toContain(
      `warning: created a new, empty SQLite database at ${path.join(dataDir, 'minutes.sqlite')} (DATA_DIR: from the environment)`,
    );
    const again = await runCli(['keys', 'create', '--mode', 'live'], { DATA_DIR: dataDir });
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('warning: created');
  }, 60_000);

  it('reads DATA_DIR from .env in the working directory, as the server does; the environment wins', async () => {
    const cwd = tempDir();
    const fromFile = path.join(cwd, 'server-data');
    fs.writeFileSync(path.join(cwd, '.env'), `DATA_DIR=${fromFile}\n`);
    const env = childEnv({});
    delete env.ENV_FILE;
    const run = await runIn(cwd, ['keys', 'create', '--mode', 'test', '--json'], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).mode).toBe('test');
    expect(run.stderr).toContain(`(DATA_DIR: from ${path.join(cwd, '.env')})`);
    expect(fs.existsSync(path.join(fromFile, 'minutes.sqlite'))).toBe(true);

    const other = tempDir();
    const wins = await runIn(cwd, ['keys', 'list', '--json'], { ...env, DATA_DIR: other });
    expect(wins.stderr).toContain('(DATA_DIR: from the environment)');
  }, 60_000);

  it('reindex piped: one summary line on stdout, no JSON log lines, no progress glyphs; --json for scripts', async () => {
    const dataDir = tempDir();
    await runCli(['keys', 'create', '--mode', 'live'], { DATA_DIR: dataDir });
    const plain = await runCli(['reindex'], { DATA_DIR: dataDir });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^Reindexed \d+ notes \(\d+ chunks\) in [\d.]+ s\.\n$/);
    expect(plain.stderr).not.toMatch(/[░█▓]|\{"level"/);
    const json = await runCli(['reindex', '--json'], { DATA_DIR: dataDir });
    expect(JSON.parse(json.stdout)).toMatchObject({ notes: expect.any(Number), chunks: expect.any(Number) });
  }, 120_000);

  it('the bundle builds into another directory and answers there (what bin/minutes.js builds on first use)', async () => {
    const outdir = path.join(ROOT, '.tmp', `cli-build-${process.pid}`);
    dirs.push(outdir);
    const { buildBundles } = (await import(path.join(ROOT, 'scripts/build.js'))) as {
      buildBundles(outdir: string): Promise<void>;
    };
    await buildBundles(outdir);
    const version = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(outdir, 'cli.js'), '--version'], {
        env: childEnv({}),
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
      });
      child.on('error', reject);
      child.on('close', () => resolve(out.trim()));
    });
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
  }, 60_000);
});
