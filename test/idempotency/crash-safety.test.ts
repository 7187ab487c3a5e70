import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../src/features/accounts/accounts.service.ts';
import { createApiKey } from '../../src/features/api-keys/api-keys.service.ts';
import { type ChildService, databaseEnv, logLine, ROOT, spawnService } from '../cli/cli-process.ts';
import { accountRowIds } from '../helpers/account-rows.ts';
import { useTestDatabase } from '../helpers/before-all.ts';
import { DIALECTS, depsOver } from '../helpers/dialects.ts';

const SCRIPT = path.join(ROOT, 'test/idempotency/fixtures/crash-after-commit-server.ts');

/**
 * The Idempotency-Key record is written in the transaction of the change it protects: a server killed with
 * SIGKILL right after that commit leaves a key whose retry replays the first answer, and one note.
 */
for (const dialect of DIALECTS) {
  describe(`Idempotency-Key survives a crash right after the commit (${dialect})`, () => {
    const db = useTestDatabase(dialect);

    const start = () =>
      spawnService(
        ['--import', 'tsx', SCRIPT],
        { ...databaseEnv(db.database), RATE_LIMIT_PER_MINUTE: '0', WORKER: 'false' },
        (out) => logLine(out, 'crash server listening', (e) => e.url as string | undefined),
        60_000,
      );

    it('replays the first answer to the retry, and exactly one note exists', async () => {
      const deps = depsOver(db);
      const account = await createAccount(deps, { email: `crash-${dialect}@example.com` });
      const { key } = await createApiKey(deps, { accountId: account.id, mode: 'live' });
      const request = (url: string, headers: Record<string, string> = {}) =>
        fetch(`${url}/v1/notes`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            'idempotency-key': 'crash-once',
            ...headers,
          },
          body: JSON.stringify({ title: 'Crash test', transcript: 'Ann: The order arrived.' }),
        });

      let first: (ChildService & { ready: string }) | undefined;
      let second: (ChildService & { ready: string }) | undefined;
      try {
        first = await start();
        const exited = new Promise<NodeJS.Signals | null>((resolve) =>
          first!.child.once('exit', (_code, signal) => resolve(signal)),
        );
        await expect(request(first.ready, { 'x-test-crash-after-commit': '1' })).rejects.toThrow();
        expect(await exited).toBe('SIGKILL');

        second = await start();
        const retry = await request(second.ready);
        const body = (await retry.json()) as { id: string; title: string };
        expect(retry.status).toBe(202);
        expect(retry.headers.get('idempotent-replayed')).toBe('true');
        expect(body.title).toBe('Crash test');
        expect(await accountRowIds(db.db, 'notes', account.id)).toEqual([body.id]);
      } finally {
        await first?.stop();
        await second?.stop();
      }
    }, 120_000);
  });
}
