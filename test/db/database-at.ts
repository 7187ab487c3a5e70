import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { Config } from '../../src/config.ts';
import { type DatabaseHandle, openDatabase } from '../../src/db/connect.ts';
import { migrate } from '../../src/db/migrate.ts';
import type { Dialect } from '../../src/db/schema.ts';
import { createScratchDatabase } from '../../src/db/scratch-database.ts';

/** A database migrated only up to `version`, and how to drop it: where a migration's test starts. */
export async function databaseAt(dialect: Dialect, version: number) {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-migrate-'));
    const database: Config['database'] = { dialect: 'sqlite', file: path.join(dir, 'db.sqlite') };
    handle = openDatabase(database);
    drop = async () => fs.rmSync(dir, { recursive: true, force: true });
  } else {
    const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 'minutes_test');
    handle = openDatabase({ dialect: 'postgres', url: scratch.url }, { poolSize: 2 });
    drop = scratch.drop;
  }
  expect(await migrate(handle.db, dialect, { upTo: version })).toEqual(
    Array.from({ length: version }, (_, i) => i + 1),
  );
  return {
    handle,
    destroy: async () => {
      await handle.close();
      await drop();
    },
  };
}
