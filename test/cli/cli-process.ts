import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SHUTDOWN_GAVE_UP, SHUTDOWN_LIMIT_MS } from '../../src/cli/shutdown.ts';
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

export interface CollectedOutput {
  stdout(): string;
  stderr(): string;
  /** Both streams interleaved as their chunks arrived. */
  all(): string;
}

/** Collects a child's stdout and stderr as text; call it right after spawn so that no chunk is missed. */
export function collectOutput(child: ChildProcess): CollectedOutput {
  const text = { stdout: '', stderr: '', all: '' };
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream]!.setEncoding('utf8').on('data', (d: string) => {
      text[stream] += d;
      text.all += d;
    });
  }
  return { stdout: () => text.stdout, stderr: () => text.stderr, all: () => text.all };
}

/** Runs `command …args` to completion and collects its output. */
export function runProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, options);
    const output = collectOutput(child);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: output.stdout(), stderr: output.stderr() }));
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
  /**
   * Sends SIGTERM and resolves with the exit code. Rejects, naming the last thing the process logged, when it
   * gave up on its own stop (its shutdown limit: a stop step hung) or did not exit at all within
   * STOP_HANG_MS (its event loop is stuck; it is then killed): a slow machine only makes the stop take longer.
   */
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
  const { stdout, stderr } = collectOutput(child);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`process did not become ready within ${timeoutMs} ms\n${stdout()}\n${stderr()}`));
    }, timeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`process exited with ${code} before it was ready\n${stdout()}\n${stderr()}`));
    });
    // Registered after collectOutput's listener, so stdout() already holds the chunk.
    child.stdout.on('data', () => {
      const value = ready(stdout());
      if (value === undefined) return;
      clearTimeout(timer);
      resolve({ child, ready: value, stdout, stderr, stop: () => stopChild(child, exited, stdout) });
    });
  });
}

/**
 * How long after SIGTERM a process that has not exited counts as hung: well past its own shutdown limit
 * (SHUTDOWN_LIMIT_MS), after which a live event loop exits by itself whatever its stop is waiting for.
 */
export const STOP_HANG_MS = SHUTDOWN_LIMIT_MS + 60_000;

const stops = new WeakMap<ChildProcess, Promise<number | null>>();

function stopChild(
  child: ChildProcess,
  exited: Promise<number | null>,
  stdout: () => string,
): Promise<number | null> {
  let stopping = stops.get(child);
  if (stopping) return stopping;
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  stopping = (async () => {
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((resolve) => {
      timer = setTimeout(() => resolve('hung'), STOP_HANG_MS);
    });
    const outcome = await Promise.race([exited, hung]);
    clearTimeout(timer);
    const last = lastLogMessage(stdout());
    if (outcome === 'hung') {
      child.kill('SIGKILL');
      throw new Error(
        `no exit ${STOP_HANG_MS} ms after SIGTERM: the process is hung (its shutdown limit never fired); ` +
          `last log line: ${last ?? 'none'}`,
      );
    }
    if (logLine(stdout(), SHUTDOWN_GAVE_UP) !== undefined) {
      throw new Error(
        `a stop step did not finish within the shutdown limit; last step logged: ${last ?? 'none'}`,
      );
    }
    return outcome;
  })();
  stops.set(child, stopping);
  return stopping;
}

/** The message of the last complete JSON log line, before the shutdown limit's own. */
function lastLogMessage(stdout: string): string | undefined {
  let last: string | undefined;
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const msg = (JSON.parse(line) as { msg?: unknown }).msg;
      if (typeof msg === 'string' && msg !== SHUTDOWN_GAVE_UP) last = msg;
    } catch {
      // A partial line.
    }
  }
  return last;
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
