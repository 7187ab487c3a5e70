import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSetupLinkUser } from '../../src/features/users/users.service.ts';
import { createTestDatabase, depsOver, type TestDatabase } from '../helpers/dialects.ts';
import { databaseEnv, runCli } from './cli-process.ts';

describe('minutes users reset-password (sqlite)', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
    env = { ...databaseEnv(db.database), PUBLIC_URL: 'https://minutes.example.com/' };
  });
  afterAll(async () => {
    await db?.destroy();
  });

  const tokenOf = (out: string) => /\/setup\?token=([A-Za-z0-9_-]{43})/.exec(out)?.[1];

  it('prints a new one-time set-up link at PUBLIC_URL for the named account', async () => {
    const created = await runCli(['accounts', 'create', '--email', 'ana@example.com'], env);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('https://minutes.example.com/setup?token=');
    const res = await runCli(['users', 'reset-password', '--account', 'ana@example.com'], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(
      /^Set-up link \(one use, valid 24 h\): https:\/\/minutes\.example\.com\/setup\?token=/,
    );
    const user = await findSetupLinkUser(depsOver(db), tokenOf(res.stdout));
    expect(user?.email).toBe('ana@example.com');
  });

  it('an unknown account is one line on stderr', async () => {
    const res = await runCli(['users', 'reset-password', '--account', 'nobody@example.com'], env);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe("error: No account with email 'nobody@example.com'.\n");
  });
});
