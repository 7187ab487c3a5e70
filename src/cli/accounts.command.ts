import type { Command } from 'commander';
import type { Config } from '../config.ts';
import { resolveAccount } from '../features/accounts/accounts.service.ts';
import { createAccountWithSetupLink, createSetupLink, setupUrl } from '../features/users/users.service.ts';
import { print, printJson, withDatabase } from './context.ts';

/** Where printed set-up links point: PUBLIC_URL, or this machine at PORT. */
export function dashboardBaseUrl(config: Config): string {
  return config.publicUrl ?? `http://localhost:${config.port}`;
}

/** `minutes accounts create` and `minutes users reset-password`. */
export function registerAccountsCommands(program: Command): void {
  const accounts = program.command('accounts').description('manage accounts');

  accounts
    .command('create')
    .description(
      'create an account; prints its id, then a one-time link (24 h) to choose its dashboard password',
    )
    .requiredOption('--email <email>', 'the account email (unique, case-insensitive)')
    .option('--name <name>', 'a display name')
    .option('--json', 'print the account (and its setup_url) as JSON')
    .action(async (opts: { email: string; name?: string; json?: boolean }) => {
      const { account, url } = await withDatabase(async (deps) => {
        const created = await createAccountWithSetupLink(deps, { email: opts.email, name: opts.name });
        return { account: created.account, url: setupUrl(dashboardBaseUrl(deps.config), created.link.token) };
      });
      if (opts.json) printJson({ ...account, setup_url: url });
      else print(account.id, `Dashboard set-up link (one use, valid 24 h): ${url}`);
    });

  const users = program.command('users').description('manage dashboard sign-ins');
  users
    .command('reset-password')
    .description(
      'print a new one-time link (24 h) to choose the dashboard password; signs the user out everywhere once used',
    )
    .option('--account <email>', 'the account (default: the owner account)')
    .action(async (opts: { account?: string }) => {
      const url = await withDatabase(async (deps) => {
        const link = await createSetupLink(deps, (await resolveAccount(deps, opts.account)).id);
        return setupUrl(dashboardBaseUrl(deps.config), link.token);
      });
      print(`Set-up link (one use, valid 24 h): ${url}`);
    });
}
