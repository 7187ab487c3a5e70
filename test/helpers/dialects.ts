import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Config, loadConfig } from '../../src/config.ts';
import { type DatabaseHandle, openDatabase } from '../../src/db/connect.ts';
import { migrate } from '../../src/db/migrate.ts';
import type { Dialect } from '../../src/db/schema.ts';
import { createScratchDatabase } from '../../src/db/scratch-database.ts';
import { createDeps, type Deps } from '../../src/deps.ts';
import { createLogger } from '../../src/lib/logger.ts';

/**
 * The dialects every suite runs on: SQLite always; PostgreSQL when TEST_DATABASE_URL is set.
 * REQUIRE_POSTGRES=1 (set by .ci/run) turns a missing TEST_DATABASE_URL into a failure, not a skip.
 */
export const DIALECTS: Dialect[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

if (process.env.REQUIRE_POSTGRES === '1' && !process.env.TEST_DATABASE_URL) {
  throw new Error('REQUIRE_POSTGRES=1 but TEST_DATABASE_URL is not set: PostgreSQL tests are required.');
}

export interface TestDatabase extends DatabaseHandle {
  database: Config['database'];
  /** Drops the PostgreSQL database or removes the SQLite file. */
  destroy(): Promise<void>;
}

/** Deps over a test database (left open by their close()), for tests that call services without the harness. */
export function depsOver(handle: TestDatabase): Deps {
  const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), database: handle.database };
  return createDeps(config, { database: handle, logger: createLogger('silent') });
}

/** A fresh, migrated database of the dialect: a temp SQLite file or a new PostgreSQL database. */
export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-test-'));
    const database: Config['database'] = { dialect: 'sqlite', file: path.join(dir, 'test.sqlite') };
    const handle = openDatabase(database);
    await migrate(handle.db, 'sqlite');
    return {
      ...handle,
      database,
      destroy: async () => {
        await handle.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 'minutes_test');
  const database: Config['database'] = { dialect: 'postgres', url: scratch.url };
  const handle = openDatabase(database, { poolSize: 5 });
  await migrate(handle.db, 'postgres');
  return {
    ...handle,
    database,
    destroy: async () => {
      await handle.close();
      await scratch.drop();
    },
  };
}
