import { type Command, Option } from 'commander';
import { resolveAccount } from '../features/accounts/accounts.service.ts';
import { createOwnerAccountIfNone, OWNER_EMAIL } from '../features/accounts/bootstrap-owner.ts';
import {
  type ApiKeyView,
  createApiKey,
  listApiKeys,
  revokeApiKey,
} from '../features/api-keys/api-keys.service.ts';
import { SCOPES } from '../features/api-keys/scopes.ts';
import { isCalendarDate, parseDateTime } from '../lib/time.ts';
import { formatTable, print, printJson, UsageError, withDatabase } from './context.ts';

/** `minutes keys create|list|revoke`: API keys of an account (the owner account unless --account). */
export function registerKeysCommands(program: Command): void {
  const keys = program.command('keys').description('create, list and revoke API keys');

  keys
    .command('create')
    .description('create an API key and print it (shown only this once)')
    .addOption(
      new Option('--mode <mode>', 'live data or the seeded test data space')
        .choices(['live', 'test'])
        .makeOptionMandatory(),
    )
    .option('--scopes <list>', `comma-separated scopes (default: all): ${SCOPES.join(', ')}`)
    .option('--name <name>', 'a label to tell keys apart in listings')
    .option(
      '--account <email>',
      'the account (default: the owner account, created if there is no account yet)',
    )
    .option(
      '--expires-at <iso>',
      'expiry: an ISO 8601 date-time (UTC without an offset) or a date, e.g. 2027-01-31',
    )
    .option('--json', 'print {id, key, mode, scopes, …} as JSON instead of the bare key')
    .action(
      async (opts: {
        mode: 'live' | 'test';
        scopes?: string;
        name?: string;
        account?: string;
        expiresAt?: string;
        json?: boolean;
      }) => {
        const scopes = opts.scopes === undefined ? undefined : parseScopes(opts.scopes);
        const expiresAt = opts.expiresAt === undefined ? undefined : expiryInstant(opts.expiresAt);
        const created = await withDatabase(async (deps) => {
          if (!opts.account && (await createOwnerAccountIfNone(deps))) {
            process.stderr.write(`no account existed: created the owner account ${OWNER_EMAIL}\n`);
          }
          const account = await resolveAccount(deps, opts.account);
          return createApiKey(deps, {
            accountId: account.id,
            mode: opts.mode,
            scopes,
            name: opts.name,
            expiresAt,
          });
        });
        if (opts.json) {
          printJson({
            id: created.id,
            key: created.key,
            mode: created.mode,
            scopes: created.scopes,
            account_id: created.account_id,
            ...(created.name ? { name: created.name } : {}),
            created_at: created.created_at,
            ...(created.expires_at ? { expires_at: created.expires_at } : {}),
          });
        } else {
          print(created.key);
        }
      },
    );

  keys
    .command('list')
    .description('list the API keys of an account (never the keys themselves)')
    .option('--account <email>', 'the account (default: the owner account)')
    .option('--json', 'print a JSON array')
    .action(async (opts: { account?: string; json?: boolean }) => {
      const list = await withDatabase(async (deps) =>
        listApiKeys(deps, (await resolveAccount(deps, opts.account)).id),
      );
      if (opts.json) return printJson(list);
      if (!list.length) return print('No API keys.');
      const now = Date.now();
      print(
        formatTable(
          ['ID', 'MODE', 'KEY', 'NAME', 'SCOPES', 'CREATED', 'LAST USED', 'STATUS'],
          list.map((k) => [
            k.id,
            k.mode,
            `${k.start}…`,
            k.name ?? '',
            k.scopes.length === SCOPES.length ? 'all' : k.scopes.join(','),
            k.created_at,
            k.last_used_at ?? 'never',
            keyStatus(k, now),
          ]),
        ),
      );
    });

  keys
    .command('revoke')
    .description('revoke an API key at once (its requests get 401 api_key_revoked)')
    .argument('<key_id>', 'the key id (key_…), as shown by `keys list`')
    .action(async (keyId: string) => {
      const revoked = await withDatabase((deps) => revokeApiKey(deps, keyId.trim()));
      print(`Revoked ${revoked.id} (${revoked.start}…) at ${revoked.revoked_at}.`);
    });
}

function parseScopes(value: string): string[] {
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // An empty list would mean "all scopes" to the service: refuse it rather than widen the key by surprise.
  if (!scopes.length) throw new UsageError(`--scopes needs at least one scope: ${SCOPES.join(', ')}.`);
  return scopes;
}

/**
 * `--expires-at` as an instant: an ISO 8601 date-time (one without an offset is UTC) or a bare date, meaning the
 * start of that UTC day (`2027-01-31` = `2027-01-31T00:00:00Z`, as a bare `from` in the API).
 */
function expiryInstant(value: string): string {
  const v = value.trim();
  const at = isCalendarDate(v)
    ? parseDateTime(`${v}T00:00:00Z`)
    : (parseDateTime(v) ?? (/[zZ]|[+-]\d{2}:\d{2}$/.test(v) ? null : parseDateTime(`${v}Z`)));
  if (!at) {
    throw new UsageError(
      `--expires-at '${value}' is not an ISO 8601 date or date-time, e.g. 2027-01-31 or 2027-01-31T18:00:00Z.`,
    );
  }
  if (at.getTime() <= Date.now()) throw new UsageError(`--expires-at '${value}' is in the past.`);
  return at.toISOString();
}

function keyStatus(k: ApiKeyView, now: number): string {
  if (k.revoked_at) return `revoked ${k.revoked_at}`;
  if (k.expires_at && Date.parse(k.expires_at) <= now) return `expired ${k.expires_at}`;
  return k.expires_at ? `active until ${k.expires_at}` : 'active';
}
