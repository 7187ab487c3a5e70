import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { MIGRATIONS, migrate } from '../db/migrate.ts';
import { createDeps } from '../deps.ts';
import { print } from './context.ts';
import { onShutdownSignal } from './shutdown.ts';
import type { BackgroundWorkers } from './workers.ts';

/** `minutes serve`, `minutes worker`, `minutes migrate`: the processes of a deployment. */
export function registerServerCommands(program: Command): void {
  program
    .command('serve')
    .description('serve the API (and run background jobs in-process unless --no-worker)')
    .option('--no-worker', 'serve only; run `minutes worker` elsewhere to process jobs')
    .action(async (opts: { worker: boolean }) => {
      // Loaded here so that key and account commands never load the HTTP layer.
      const { runServe } = await import('../main.ts');
      // Without the flag the WORKER setting decides; the flag can only turn the worker off.
      await runServe({ worker: opts.worker === false ? false : undefined });
    });

  program
    .command('worker')
    .description('run background jobs only (processing, webhook deliveries); start as many as you like')
    .action(async () => {
      await runWorker();
    });

  program
    .command('migrate')
    .description('apply pending database migrations and exit (serve and worker also do this at start)')
    .action(async () => {
      const config = loadConfig();
      const deps = createDeps(config, { poolSize: 1 });
      try {
        const applied = await migrate(deps.db, deps.dialect);
        const where =
          config.database.dialect === 'sqlite'
            ? `SQLite database ${config.database.file}`
            : 'PostgreSQL database';
        const names = MIGRATIONS.filter((m) => applied.includes(m.version)).map(
          (m) => `${m.version} ${m.name}`,
        );
        print(
          applied.length ? `Applied to the ${where}: ${names.join(', ')}.` : `The ${where} is up to date.`,
        );
      } finally {
        await deps.close();
      }
    });
}

/** A worker process: opens and migrates the database, runs the job and delivery loops until SIGINT/SIGTERM. */
async function runWorker(): Promise<void> {
  let workers: BackgroundWorkers | undefined;
  const deps = createDeps(loadConfig(), { wakeWorker: () => workers?.wake() });
  const { logger } = deps;
  try {
    await migrate(deps.db, deps.dialect);
    // Loaded here so that other commands never load the job and delivery loops.
    const { startBackgroundWorkers } = await import('./workers.ts');
    workers = await startBackgroundWorkers(deps);
  } catch (err) {
    await deps.close().catch(() => {});
    throw err;
  }
  const running = workers;
  // The loops may run on unref'd timers; this keeps the process alive until it is told to stop.
  const keepAlive = setInterval(() => {}, 1 << 30);
  logger.info({ dialect: deps.dialect }, 'minutes worker started');
  onShutdownSignal(logger, async () => {
    clearInterval(keepAlive);
    await running.stop();
    await deps.close();
    logger.info('minutes worker stopped');
  });
}
