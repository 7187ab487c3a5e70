import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { serve } from '@hono/node-server';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import { startBackgroundThread } from './cli/background-thread.ts';
import { describeError, onShutdownSignal } from './cli/shutdown.ts';
import type { BackgroundWorkers } from './cli/workers.ts';
import { type Config, ConfigError, loadConfig, loadEnvFile } from './config.ts';
import { migrate } from './db/migrate.ts';
import { createDeps } from './deps.ts';
import { bootstrapOwner, type FirstStart } from './features/accounts/bootstrap-owner.ts';
import type { SearchPreparation } from './features/search/search.ts';
import { setupUrl } from './features/users/users.service.ts';
import { createLogger } from './lib/logger.ts';

/** The banner of a first start: plain text on stdout, so it is seen even where JSON logs are not read. */
export function formatFirstStart(first: FirstStart, baseUrl: string): string {
  const rule = '='.repeat(78);
  return [
    '',
    rule,
    ` Minutes: first start. Created the owner account ${first.email} and two API keys.`,
    ' They are shown only this once and stored only as hashes: copy them now.',
    '',
    `   live key: ${first.liveKey}`,
    `   test key: ${first.testKey}   (sees a seeded mock data space only)`,
    '',
    ` Dashboard: choose the owner's password at (one use, valid 24 h; sign in as ${first.email}):`,
    `   ${setupUrl(baseUrl, first.setupToken)}`,
    '',
    ` Try: curl -H "Authorization: Bearer ${first.liveKey}" ${baseUrl}/v1/notes`,
    ' More keys: npx minutes keys create --mode live|test [--scopes notes:read,search]',
    rule,
    '',
    '',
  ].join('\n');
}

export interface RunningServer {
  /** The port actually bound (differs from config.port when that is 0). */
  port: number;
  /** A URL clients on this machine can use. */
  url: string;
  logger: Logger;
  /** Stops accepting connections, lets in-flight requests finish, stops the worker, closes the database. */
  stop(): Promise<void>;
}

export interface StartServerOptions {
  /** Runs the in-process worker; defaults to config.worker.enabled. */
  worker?: boolean;
  /** Where the first-start banner goes (stdout by default). */
  out?: NodeJS.WritableStream;
  /** How long stop() waits for in-flight requests before closing their connections. */
  drainMs?: number;
  /** The logger to use (one is made from config.logLevel otherwise). */
  logger?: Logger;
}

/**
 * loadConfig's result → open and migrate the database → create the owner on an empty database (printing its
 * keys once) → serve the app on config.host:config.port → start the in-process worker when enabled.
 * Installs no signal handlers and never exits the process, so tests can run it in-process too.
 */
export async function startServer(config: Config, options: StartServerOptions = {}): Promise<RunningServer> {
  let worker: BackgroundWorkers | undefined;
  const deps = createDeps(config, {
    ...(options.logger ? { logger: options.logger } : {}),
    wakeWorker: () => worker?.wake(),
  });
  const { logger } = deps;
  let server: HttpServer | undefined;
  let search: SearchPreparation | undefined;
  try {
    const applied = await migrate(deps.db, deps.dialect);
    if (applied.length) logger.info({ migrations: applied }, 'applied database migrations');

    const app = buildApp(deps);
    const listening = await listen(app.fetch, config);
    server = listening;
    // Loads the embedder (the first start builds its cache: seconds), picks the vector store, detects an index
    // built by another embedder and logs what search will do, without holding up the start: /readyz answers
    // 503 from here (no request is read before this line runs) until it is done, and searches and the worker's
    // indexing wait for it. Only once the port is bound, so a start that cannot bind exits at once; the work
    // begins once the start is logged and the keys are printed.
    let announced!: () => void;
    search = deps.search.prepareInBackground({
      after: new Promise<void>((resolve) => (announced = resolve)),
    });
    const port = (listening.address() as AddressInfo).port;
    const url = `http://${clientHost(config.host)}:${port}`;
    // Only once the port is bound: keys created by a start that then fails would never be printed.
    const first = await bootstrapOwner(deps);

    const runWorker = options.worker ?? config.worker.enabled;
    logger.info(
      {
        url,
        dialect: deps.dialect,
        database: deps.dialect === 'sqlite' ? config.database : undefined,
        worker: runWorker,
      },
      'minutes listening',
    );
    if (first) {
      logger.info({ account_id: first.accountId, email: first.email }, 'first start: created owner account');
      (options.out ?? process.stdout).write(formatFirstStart(first, config.publicUrl ?? url));
    }
    announced();
    // In a thread of its own, so that the pipeline never holds up a request (decision 35).
    if (runWorker) worker = startBackgroundThread(config, logger);

    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => listening.close(() => resolve()));
        listening.closeIdleConnections();
        const drain = setTimeout(() => listening.closeAllConnections(), options.drainMs ?? 10_000);
        await closed;
        clearTimeout(drain);
        logger.info('stopping: connections closed');
        search?.stop();
        await worker?.stop();
        logger.info('stopping: background work stopped');
        await deps.close();
        logger.info('minutes stopped');
      })();
      return stopping;
    };
    return { port, url, logger, stop };
  } catch (err) {
    search?.stop();
    server?.close();
    server?.closeAllConnections();
    await worker?.stop().catch(() => {});
    await deps.close().catch(() => {});
    throw err;
  }
}

/** Binds the port; resolves once listening, rejects when the port cannot be bound (EADDRINUSE, EACCES). */
function listen(fetch: Parameters<typeof serve>[0]['fetch'], config: Config): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    // Plain HTTP/1.1 (no serverOptions given), so this is a node:http Server.
    const server = serve({ fetch, port: config.port, hostname: config.host }) as HttpServer;
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** 0.0.0.0 / :: accept everything; print a URL a local client can open. */
function clientHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** `npm start` and `minutes serve`: start, then stop gracefully on SIGINT/SIGTERM. */
export async function runServe(options: { worker?: boolean } = {}): Promise<RunningServer> {
  loadEnvFile();
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const starting = startServer(config, { ...options, logger });
  // From the start, not once it is done: a signal between `minutes listening` and the worker's start (loading
  // its code takes a moment) would otherwise end the process uncleanly; it stops once the start is complete.
  onShutdownSignal(logger, async () => (await starting).stop());
  return starting;
}

const entry = process.argv[1];
if (entry && import.meta.url === pathToFileURL(path.resolve(entry)).href) {
  runServe().catch((err: unknown) => {
    // A bad setting prints its own list of problems; anything else is one line, no stack.
    process.stderr.write(
      err instanceof ConfigError ? `${err.message}\n` : `minutes: could not start: ${describeError(err)}\n`,
    );
    process.exit(1);
  });
}
