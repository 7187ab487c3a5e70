import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { Config } from '../../src/config.ts';
import { childEnv, collectOutput, databaseEnv, ROOT } from '../cli/cli-process.ts';

const SCRIPT = path.join(ROOT, 'test/webhooks/fixtures/webhook-worker-process.ts');

export interface WorkerProcess {
  child: ChildProcess;
  /** Every JSON log line so far. */
  logs(): Record<string, unknown>[];
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** Spawns a real delivery worker process on the test database; resolves once it has started. */
export function spawnWorker(
  database: Config['database'],
  settings: Record<string, string>,
  timeoutMs = 30_000,
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    cwd: ROOT,
    env: childEnv({ LOG_LEVEL: 'info', ...databaseEnv(database), ...settings }),
  });
  const { stdout, stderr } = collectOutput(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const logs = () =>
    stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`worker did not start within ${timeoutMs} ms\n${stdout()}\n${stderr()}`));
    }, timeoutMs);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`worker exited before starting\n${stdout()}\n${stderr()}`));
    });
    child.stdout.on('data', () => {
      if (!logs().some((l) => l.msg === 'webhook worker started')) return;
      clearTimeout(timer);
      resolve({
        child,
        logs,
        async kill(signal) {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          await exited;
        },
      });
    });
  });
}

/** The worker processes a test spawns, pushed here; each is killed with SIGKILL after its test. */
export function useWorkerProcesses(): WorkerProcess[] {
  const workers: WorkerProcess[] = [];
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.kill('SIGKILL')));
  });
  return workers;
}
