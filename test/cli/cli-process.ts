import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../src/config.ts';
import { ConfigSchema } from '../../src/config.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin/minutes.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a child process: this process's environment without any setting of the service (so a
 * developer's DATABASE_URL never leaks into a test), plus the given settings.
 */
export function childEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!(name in ConfigSchema.shape)) env[name] = value;
  }
  // No .env of a developer's checkout either, unless a test names one.
  return { ...env, ENV_FILE: 'none', ...settings };
}

/** Settings that point a child process at a test database. */
export function databaseEnv(database: Config['database']): Record<string, string> {
  return { DATABASE_URL: database.dialect === 'sqlite' ? `sqlite://${database.file}` : database.url };
}

/** Runs `command …args` to completion and collects its output. */
export function runProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs `node bin/minutes.js …args` (or, with `via: 'npx'`, `npx --no-install minutes …args`) to completion. */
export function runCli(
  args: string[],
  settings: Record<string, string>,
  via: 'node' | 'npx' = 'node',
): Promise<CliResult> {
  const [command, prefix] = via === 'node' ? [process.execPath, [BIN]] : ['npx', ['--no-install', 'minutes']];
  return runProcess(command, [...prefix, ...args], { cwd: ROOT, env: childEnv(settings) });
}

export interface ChildService {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface ServerProcess extends ChildService {
  /** Base URL from the server's `minutes listening` log line. */
  url: string;
}

/**
 * Spawns `node <args>` (LOG_LEVEL=info) and resolves once `ready(stdout)` returns a value.
 * Rejects with its output when it exits first or takes longer than `timeoutMs`.
 */
export function spawnService<T>(
  nodeArgs: string[],
  settings: Record<string, string>,
  ready: (stdout: string) => T | undefined,
  timeoutMs = 30_000,
): Promise<ChildService & { ready: T }> {
  const child = spawn(process.execPath, nodeArgs, {
    cwd: ROOT,
    env: childEnv({ LOG_LEVEL: 'info', ...settings }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`process did not become ready within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`process exited with ${code} before it was ready\n${stdout}\n${stderr}`));
    });
    child.stdout.on('data', (d: string) => {
      stdout += d;
      const value = ready(stdout);
      if (value === undefined) return;
      clearTimeout(timer);
      resolve({
        child,
        ready: value,
        stdout: () => stdout,
        stderr: () => stderr,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    });
  });
}

/** Spawns a server (`node <args>`) with PORT=0 on 127.0.0.1 and resolves once it logs the URL it listens on. */
export async function spawnServer(
  nodeArgs: string[],
  settings: Record<string, string>,
): Promise<ServerProcess> {
  // A minute: a first start migrates and a busy machine (CI with other work) is slow; the wait ends at the line.
  const service = await spawnService(
    nodeArgs,
    { PORT: '0', HOST: '127.0.0.1', ...settings },
    (out) => logLine(out, 'minutes listening', (entry) => entry.url as string | undefined),
    60_000,
  );
  return { ...service, url: service.ready };
}

/** A value read from the first JSON log line with this message. */
export function logLine<T>(
  stdout: string,
  message: string,
  pick: (entry: Record<string, unknown>) => T | undefined = () => true as T,
): T | undefined {
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.msg === message) return pick(entry);
    } catch {
      // A partial line: wait for the rest.
    }
  }
  return undefined;
}

/** No stack frames, no file paths of the implementation. */
export function expectNoStack(text: string): boolean {
  return !/\n\s+at\s/.test(text) && !text.includes('node_modules');
}
