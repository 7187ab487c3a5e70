import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { ConfigSchema } from '../../src/config.ts';
import { type DatabaseHandle, openDatabase } from '../../src/db/connect.ts';
import { migrate } from '../../src/db/migrate.ts';
import type { Dialect } from '../../src/db/schema.ts';
import { createScratchDatabase } from '../../src/db/scratch-database.ts';

/** Helpers the benchmarks share to run the real server as a child process. */

/** A port that is free right now on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The environment of a child: ours without any service setting, plus the given ones. */
export function childEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!(name in ConfigSchema.shape)) env[name] = value;
  return { ...env, ...settings };
}

/** SIGTERM, then SIGKILL after 15 s; resolves once the child has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Resolves once the server is ready to be measured: `GET /readyz` answers 200 and no longer reports search as
 * `preparing` (a fresh DATA_DIR converts the builtin embedder's vectors in the background for 10–30 s, which
 * would otherwise run during the first measurement). Fails when the child exits or after 120 s.
 */
export async function waitForReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/readyz`);
      const body = (await res.json()) as { search?: string };
      if (res.ok && body.search !== 'preparing') return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not become ready within 120 s');
}

/**
 * A migrated database for a child server, opened here too so the benchmark can seed it: a SQLite file in
 * `dataDir`, or a throwaway PostgreSQL database on `pgAdminUrl` (dropped by `drop`). `env` is what the child needs.
 */
export async function childDatabase(
  dialect: Dialect,
  dataDir: string,
  options: { pgAdminUrl?: string; prefix: string },
): Promise<{ env: Record<string, string>; database: DatabaseHandle; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const file = path.join(dataDir, 'bench.sqlite');
    const database = openDatabase({ dialect, file });
    await migrate(database.db, dialect);
    return { env: { DATABASE_URL: `sqlite://${file}` }, database, drop: async () => {} };
  }
  if (!options.pgAdminUrl) throw new Error('PostgreSQL needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
  const scratch = await createScratchDatabase(options.pgAdminUrl, options.prefix);
  const database = openDatabase({ dialect, url: scratch.url });
  await migrate(database.db, dialect);
  return { env: { DATABASE_URL: scratch.url }, database, drop: scratch.drop };
}
