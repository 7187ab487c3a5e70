import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createDeps } from '../src/deps.ts';
import { createAccount } from '../src/features/accounts/accounts.service.ts';
import { ensureSeeded } from '../src/features/test-mode/seed.service.ts';
import { randomBase62 } from '../src/lib/ids.ts';
import { createLogger } from '../src/lib/logger.ts';
import { useTestDatabase } from './helpers/before-all.ts';
import { DIALECTS } from './helpers/dialects.ts';

describe.each(DIALECTS)('createDeps (%s)', (dialect) => {
  const database = useTestDatabase(dialect);
  const config = () => ({ ...loadConfig({ WORKER: 'false' }), database: database.database });
  const logger = createLogger('silent');

  it('opens the configured database and closes it once; close() is idempotent', async () => {
    const deps = createDeps(config(), { poolSize: 1, logger });
    expect(deps.dialect).toBe(dialect);
    const one = await sql<{ n: number }>`SELECT 1 AS n`.execute(deps.db);
    expect(Number(one.rows[0]!.n)).toBe(1);
    const closing = deps.close();
    expect(deps.close()).toBe(closing);
    await closing;
    await expect(sql`SELECT 1`.execute(deps.db)).rejects.toThrow();
  });

  it('leaves a database it was given open', async () => {
    const deps = createDeps(config(), { database, logger });
    await deps.close();
    const one = await sql<{ n: number }>`SELECT 1 AS n`.execute(database.db);
    expect(Number(one.rows[0]!.n)).toBe(1);
  });

  it('each deps remembers its own state: a second deps over the same database starts empty', async () => {
    const a = createDeps(config(), { database, logger });
    const b = createDeps(config(), { database, logger });
    const account = await createAccount(a, {
      email: `deps-${randomBase62(8).toLowerCase()}@example.com`,
    });
    await ensureSeeded(a, account.id);
    expect(a.seed.seeded.has(account.id)).toBe(true);
    expect(b.seed.seeded.has(account.id)).toBe(false);
    // The second one learns it from the database (the marker row), without seeding again.
    await ensureSeeded(b, account.id);
    expect(b.seed.seeded.has(account.id)).toBe(true);
    expect(a.search).not.toBe(b.search);
    expect(a.processing).not.toBe(b.processing);
    expect(a.fanOut).not.toBe(b.fanOut);
  });

  it('wakeWorker is a no-op unless given', () => {
    let woken = 0;
    expect(() => createDeps(config(), { database, logger }).wakeWorker()).not.toThrow();
    createDeps(config(), { database, logger, wakeWorker: () => woken++ }).wakeWorker();
    expect(woken).toBe(1);
  });
});
