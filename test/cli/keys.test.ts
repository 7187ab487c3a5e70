import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { databaseEnv, expectNoStack, runCli } from './cli-process.ts';

const KEY_RE = /^svc_sk_(live|test)_[0-9A-Za-z]{32}$/;

describe('minutes keys create before any start (fresh DATA_DIR)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-keys-fresh-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('creates the owner account, says so on stderr, and prints only the key', async () => {
    const first = await runCli(['keys', 'create', '--mode', 'live', '--name', 'ci'], { DATA_DIR: dataDir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^svc_sk_live_[0-9A-Za-z]{32}\n$/);
    expect(first.stderr).toContain('created the owner account owner@localhost');

    const second = await runCli(['keys', 'create', '--mode', 'test'], { DATA_DIR: dataDir });
    expect(second.code).toBe(0);
    expect(second.stderr).toBe('');
    const list = await runCli(['keys', 'list', '--json'], { DATA_DIR: dataDir });
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { mode: string }[]).map((k) => k.mode).sort()).toEqual([
      'live',
      'test',
    ]);
  });
});

for (const dialect of DIALECTS) {
  describe(`minutes keys / accounts (${dialect})`, () => {
    const h = useHarness(dialect);
    const cli = (...args: string[]) => runCli(args, databaseEnv(h.db.database));
    const uniqueEmail = () => `cli-${Math.random().toString(36).slice(2, 10)}@example.com`;

    async function newAccount(): Promise<{ id: string; email: string }> {
      const email = uniqueEmail();
      const res = await cli('accounts', 'create', '--email', email, '--name', 'CLI user');
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      return { id: res.stdout.split('\n')[0]!, email };
    }

    it('accounts create prints the new account id then its set-up link, and the account exists', async () => {
      const email = `Mixed-${uniqueEmail()}`;
      const res = await cli('accounts', 'create', '--email', email);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(
        /^acct_[0-9A-Za-z]{24}\nDashboard set-up link \(one use, valid 24 h\): http:\/\/localhost:\d+\/setup\?token=[A-Za-z0-9_-]{43}\n$/,
      );
      const row = await h.db.db
        .selectFrom('accounts')
        .selectAll()
        .where('id', '=', res.stdout.split('\n')[0]!)
        .executeTakeFirst();
      expect(row?.email).toBe(email.toLowerCase());
    });

    it('keys create prints only the key, and the key authenticates against the API', async () => {
      const account = await newAccount();
      const res = await cli('keys', 'create', '--mode', 'live', '--account', account.email);
      expect(res.code).toBe(0);
      expect(res.stderr).toBe('');
      expect(res.stdout.endsWith('\n')).toBe(true);
      const key = res.stdout.trim();
      expect(key).toMatch(KEY_RE);
      expect(key.startsWith('svc_sk_live_')).toBe(true);

      const list = await h.request('GET', '/v1/notes', { key });
      expect(list.status).toBe(200);
      expect(list.body.meta.total).toBe(0);
    });

    it('works as `npx minutes …` in a checkout, with only the key on stdout', async () => {
      const account = await newAccount();
      const res = await runCli(
        ['keys', 'create', '--mode', 'live', '--account', account.email],
        databaseEnv(h.db.database),
        'npx',
      );
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^svc_sk_live_[0-9A-Za-z]{32}\n$/);
      expect((await h.request('GET', '/v1/notes', { key: res.stdout.trim() })).status).toBe(200);
    });

    it('keys create --json returns id, key, mode and scopes; scopes limit what the key may do', async () => {
      const account = await newAccount();
      const res = await cli(
        'keys',
        'create',
        '--mode',
        'live',
        '--scopes',
        'notes:read, search',
        '--name',
        'read only',
        '--account',
        account.email,
        '--json',
      );
      expect(res.code).toBe(0);
      const created = JSON.parse(res.stdout);
      expect(created).toMatchObject({ mode: 'live', scopes: ['notes:read', 'search'], name: 'read only' });
      expect(created.id).toMatch(/^key_[0-9A-Za-z]{24}$/);
      expect(created.key).toMatch(KEY_RE);
      expect(created.account_id).toBe(account.id);

      expect((await h.request('GET', '/v1/notes', { key: created.key })).status).toBe(200);
      const write = await h.request('PATCH', '/v1/notes/note_000000000000000000000000', {
        key: created.key,
        body: { title: 'x' },
      });
      expect(write.status).toBe(403);
      expect(write.body.error.code).toBe('insufficient_scope');
      expect(write.body.error.message).toContain('notes:write');
    });

    it('keys create --mode test makes a test key that reaches only the test data space', async () => {
      const account = await newAccount();
      const res = await cli('keys', 'create', '--mode', 'test', '--account', account.email, '--json');
      expect(res.code).toBe(0);
      const created = JSON.parse(res.stdout);
      expect(created.key.startsWith('svc_sk_test_')).toBe(true);
      expect(created.mode).toBe('test');
      expect(created.scopes).toHaveLength(7);
      const list = await h.request('GET', '/v1/notes', { key: created.key });
      expect(list.status).toBe(200);
    });

    /** `keys create --json` for the live data of a new account, with the given --expires-at. */
    const createExpiring = async (expiresAt: string) =>
      cli(
        'keys',
        'create',
        '--mode',
        'live',
        '--account',
        (await newAccount()).email,
        '--expires-at',
        expiresAt,
        '--json',
      );

    it('keys create --expires-at stores the expiry in UTC', async () => {
      const res = await createExpiring('2099-01-31T10:00:00+02:00');
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout).expires_at).toBe('2099-01-31T08:00:00.000Z');
    });

    it.each([
      ['2099-01-31', '2099-01-31T00:00:00.000Z'],
      ['2099-01-31T10:30:00', '2099-01-31T10:30:00.000Z'],
      ['2099-01-31T10:30:00.250Z', '2099-01-31T10:30:00.250Z'],
    ])(
      'keys create --expires-at %s (a bare date is the start of that UTC day; no offset means UTC)',
      async (given, stored) => {
        const res = await createExpiring(given);
        expect(res.code, res.stderr).toBe(0);
        expect(JSON.parse(res.stdout).expires_at).toBe(stored);
      },
    );

    it('keys list shows the keys of the account but never a key or its hash', async () => {
      const account = await newAccount();
      const live = JSON.parse(
        (await cli('keys', 'create', '--mode', 'live', '--account', account.email, '--name', 'ci', '--json'))
          .stdout,
      );
      const test = JSON.parse(
        (await cli('keys', 'create', '--mode', 'test', '--account', account.email, '--json')).stdout,
      );
      const secrets = [live.key, test.key];
      const hashes = secrets.map((k: string) => createHash('sha256').update(k).digest('hex'));

      const text = await cli('keys', 'list', '--account', account.email);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(live.id);
      expect(text.stdout).toContain(test.id);
      expect(text.stdout).toContain('ci');

      const json = await cli('keys', 'list', '--account', account.email, '--json');
      expect(json.code).toBe(0);
      const listed = JSON.parse(json.stdout) as Record<string, unknown>[];
      expect(listed.map((k) => k.id).sort()).toEqual([live.id, test.id].sort());
      expect(listed.find((k) => k.id === live.id)).toMatchObject({ mode: 'live', name: 'ci' });
      for (const k of listed) {
        expect(k).not.toHaveProperty('key');
        expect(k).not.toHaveProperty('key_hash');
        expect(String(k.start)).toMatch(/^svc_sk_(live|test)_[0-9A-Za-z]{4}$/);
      }
      for (const output of [text.stdout, json.stdout]) {
        for (const secret of [...secrets, ...hashes]) expect(output).not.toContain(secret);
      }

      // Another account's keys stay out of the listing.
      const other = await newAccount();
      const otherList = JSON.parse((await cli('keys', 'list', '--account', other.email, '--json')).stdout);
      expect(otherList).toEqual([]);
    });

    it('keys revoke makes the key fail with 401 api_key_revoked at once', async () => {
      const account = await newAccount();
      const created = JSON.parse(
        (await cli('keys', 'create', '--mode', 'live', '--account', account.email, '--json')).stdout,
      );
      expect((await h.request('GET', '/v1/notes', { key: created.key })).status).toBe(200);

      const res = await cli('keys', 'revoke', created.id);
      expect(res.code).toBe(0);
      expect(res.stdout).toContain(created.id);

      const after = await h.request('GET', '/v1/notes', { key: created.key });
      expect(after.status).toBe(401);
      expect(after.body.error.code).toBe('api_key_revoked');

      const listed = JSON.parse((await cli('keys', 'list', '--account', account.email, '--json')).stdout);
      expect(listed[0].revoked_at).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
      expect((await cli('keys', 'list', '--account', account.email)).stdout).toContain('revoked');

      // Revoking twice is harmless.
      expect((await cli('keys', 'revoke', created.id)).code).toBe(0);
    });

    describe('user errors exit 1 with one line on stderr and nothing on stdout', () => {
      // An account exists, so "there is no account yet" never masks the error under test.
      beforeAll(async () => {
        await newAccount();
      });
      const cases: [string, () => Promise<string[]>, RegExp][] = [
        [
          'unknown scope',
          async () => ['keys', 'create', '--mode', 'live', '--scopes', 'notes:read,bogus'],
          /bogus/,
        ],
        ['empty scope list', async () => ['keys', 'create', '--mode', 'live', '--scopes', ' , '], /--scopes/],
        ['bad mode', async () => ['keys', 'create', '--mode', 'prod'], /live, test/],
        ['missing mode', async () => ['keys', 'create'], /--mode/],
        [
          'unknown account',
          async () => ['keys', 'create', '--mode', 'live', '--account', 'nobody@example.com'],
          /nobody@example\.com/,
        ],
        [
          'malformed date',
          async () => ['keys', 'create', '--mode', 'live', '--expires-at', 'next tuesday'],
          /--expires-at/,
        ],
        [
          'impossible calendar date',
          async () => ['keys', 'create', '--mode', 'live', '--expires-at', '2099-02-30'],
          /--expires-at '2099-02-30' is not an ISO 8601 date/,
        ],
        [
          'bare date in the past',
          async () => ['keys', 'create', '--mode', 'live', '--expires-at', '2001-01-01'],
          /past/,
        ],
        [
          'date in the past',
          async () => ['keys', 'create', '--mode', 'live', '--expires-at', '2001-01-01T00:00:00Z'],
          /past/,
        ],
        [
          'unknown key id',
          async () => ['keys', 'revoke', 'key_doesnotexist000000000000'],
          /key_doesnotexist/,
        ],
        ['list for unknown account', async () => ['keys', 'list', '--account', 'ghost@example.com'], /ghost/],
        ['invalid email', async () => ['accounts', 'create', '--email', 'not-an-email'], /not a valid email/],
        [
          'duplicate email',
          async () => ['accounts', 'create', '--email', (await newAccount()).email.toUpperCase()],
          /already exists/,
        ],
        ['unknown command', async () => ['keys', 'rotate'], /rotate/],
      ];
      for (const [name, args, message] of cases) {
        it(name, async () => {
          const res = await cli(...(await args()));
          expect(res.code).toBe(1);
          expect(res.stdout).toBe('');
          expect(res.stderr).toMatch(message);
          // One line (commander may add its "(Did you mean …?)" hint to an unknown command).
          const lines = res.stderr
            .trim()
            .split('\n')
            .filter((l) => !l.startsWith('(Did you mean'));
          expect(lines).toHaveLength(1);
          expect(res.stderr).toMatch(/^error: /);
          expect(expectNoStack(res.stderr)).toBe(true);
        });
      }

      it('an invalid setting prints the configuration error, not a stack', async () => {
        const res = await runCli(['keys', 'list'], { ...databaseEnv(h.db.database), PORT: 'eighty' });
        expect(res.code).toBe(1);
        expect(res.stderr).toContain('Invalid configuration');
        expect(res.stderr).toContain('PORT');
        expect(expectNoStack(res.stderr)).toBe(true);
      });
    });
  });
}
