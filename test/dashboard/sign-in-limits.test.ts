import { describe, expect, it } from 'vitest';
import { purgeExpired } from '../../src/features/retention/purge-expired.ts';
import {
  addressOf,
  MAX_ATTEMPTS_PER_ACCOUNT,
  MAX_ATTEMPTS_PER_CLIENT,
  SIGN_IN_WINDOW_MS,
  subjectOf,
} from '../../src/features/users/sign-in-limits.ts';
import { completeSetup, createSetupLink, signIn } from '../../src/features/users/users.service.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { DashboardClient } from './dashboard-client.ts';

const PASSWORD = 'correct horse battery';
const OWNER_ADDRESS = '198.51.100.7';
const ATTACKER = '203.0.113.66';

describe.each(DIALECTS)('sign-in attempt limits (%s)', (dialect) => {
  const h = useHarness(dialect);

  async function withPassword() {
    const t = await h.tenant();
    const { token } = await createSetupLink(h.deps, t.accountId);
    await completeSetup(h.deps, { token, password: PASSWORD });
    return t;
  }

  const attempt = (email: string, password: string, clientAddress: string) =>
    signIn(h.deps, { email, password, clientAddress });

  it('40 parallel wrong passwords from one address: at most the limit are checked, the rest are refused unhashed', async () => {
    const t = await withPassword();
    const results = await Promise.all(
      Array.from({ length: 40 }, () => attempt(t.email, 'wrong password!', ATTACKER)),
    );
    const checked = results.filter((r) => !r.ok && r.reason === 'invalid').length;
    expect(checked).toBe(MAX_ATTEMPTS_PER_CLIENT);
    expect(results.filter((r) => !r.ok && r.reason === 'locked')).toHaveLength(40 - MAX_ATTEMPTS_PER_CLIENT);
    // Every attempt was counted, and the right password from that address is refused too.
    const right = await attempt(t.email, PASSWORD, ATTACKER);
    expect(right).toMatchObject({ ok: false, reason: 'locked' });
    const row = await h.db.db
      .selectFrom('sign_in_attempts')
      .select('attempts')
      .where('subject', '=', subjectOf(t.email))
      .where('address', '=', addressOf(ATTACKER))
      .executeTakeFirstOrThrow();
    expect(Number(row.attempts)).toBe(41);
  });

  it('an attacker elsewhere cannot lock the owner out: per address, and the owner’s known address passes the account limit', async () => {
    const t = await withPassword();
    expect((await attempt(t.email, PASSWORD, OWNER_ADDRESS)).ok).toBe(true);
    // Many addresses, each under its own limit, together past the account-wide one.
    const guesses = [];
    for (let i = 0; i < MAX_ATTEMPTS_PER_ACCOUNT + 10; i++) {
      guesses.push(attempt(t.email, 'wrong password!', `192.0.2.${i % 50}`));
    }
    const results = await Promise.all(guesses);
    expect(results.filter((r) => !r.ok && r.reason === 'invalid')).toHaveLength(MAX_ATTEMPTS_PER_ACCOUNT - 1);
    // A new address is now held back for the rest of the window…
    const stranger = await attempt(t.email, PASSWORD, '192.0.2.200');
    expect(stranger).toMatchObject({ ok: false, reason: 'locked' });
    if (!stranger.ok && stranger.reason === 'locked') {
      expect(stranger.retryAfterSeconds).toBeGreaterThan(0);
      expect(stranger.retryAfterSeconds).toBeLessThanOrEqual(SIGN_IN_WINDOW_MS / 1000);
    }
    // …but the owner, from the address they signed in from before, still gets in.
    expect((await attempt(t.email, PASSWORD, OWNER_ADDRESS)).ok).toBe(true);
  });

  it('a reset (a completed set-up link) lifts the lock on the email', async () => {
    const t = await withPassword();
    for (let i = 0; i < MAX_ATTEMPTS_PER_CLIENT; i++) await attempt(t.email, 'wrong password!', ATTACKER);
    expect(await attempt(t.email, PASSWORD, ATTACKER)).toMatchObject({ ok: false, reason: 'locked' });
    const { token } = await createSetupLink(h.deps, t.accountId);
    await completeSetup(h.deps, { token, password: `${PASSWORD} 2` });
    expect((await attempt(t.email, `${PASSWORD} 2`, ATTACKER)).ok).toBe(true);
  });

  it('the sign-in page answers 429 with Retry-After for the locked address only', async () => {
    const t = await withPassword();
    const attacker = new DashboardClient(h.app, ATTACKER);
    for (let i = 0; i < MAX_ATTEMPTS_PER_CLIENT; i++) {
      const res = await attacker.submit('/sign-in', '/sign-in', {
        email: t.email,
        password: 'wrong password!',
      });
      expect(res.status).toBe(401);
    }
    const locked = await attacker.submit('/sign-in', '/sign-in', { email: t.email, password: PASSWORD });
    expect(locked.status).toBe(429);
    expect(locked.text).toContain('Too many failed sign-ins');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    const owner = new DashboardClient(h.app, OWNER_ADDRESS);
    const ok = await owner.submit('/sign-in', '/sign-in', { email: t.email, password: PASSWORD });
    expect(ok.status).toBe(303);
  });

  it('unknown emails are limited alike, and the retention sweep purges past windows and ended sessions', async () => {
    const unknown = await Promise.all(
      Array.from({ length: 8 }, () => attempt('nobody@example.com', 'wrong password!', ATTACKER)),
    );
    expect(unknown.filter((r) => !r.ok && r.reason === 'locked')).toHaveLength(8 - MAX_ATTEMPTS_PER_CLIENT);
    const t = await withPassword();
    const client = new DashboardClient(h.app, OWNER_ADDRESS);
    await client.submit('/sign-in', '/sign-in', { email: t.email, password: PASSWORD });
    const user = await h.db.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', t.email)
      .executeTakeFirstOrThrow();
    const rows = async () => ({
      attempts: (
        await h.db.db
          .selectFrom('sign_in_attempts')
          .selectAll()
          .where('subject', 'in', [subjectOf(t.email), subjectOf('nobody@example.com')])
          .execute()
      ).length,
      sessions: (await h.db.db.selectFrom('sessions').selectAll().where('user_id', '=', user.id).execute())
        .length,
      known: (
        await h.db.db
          .selectFrom('sign_in_known_addresses')
          .selectAll()
          .where('subject', '=', subjectOf(t.email))
          .execute()
      ).length,
    });
    const before = await rows();
    expect(before.attempts).toBeGreaterThan(0);
    expect(before.sessions).toBe(1);
    await purgeExpired(h.db.db, h.deps.config.retention);
    expect(await rows()).toEqual(before);
    // A window later the counters go; 15 days later the session has ended (idle and past its maximum) and goes.
    await purgeExpired(h.db.db, h.deps.config.retention, Date.now() + 15 * 86_400_000);
    expect(await rows()).toEqual({ attempts: 0, sessions: 0, known: 1 });
    await purgeExpired(h.db.db, h.deps.config.retention, Date.now() + 31 * 86_400_000);
    expect((await rows()).known).toBe(0);
  });
});
