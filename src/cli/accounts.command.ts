import type { Command } from 'commander';
import { createAccount } from '../features/accounts/accounts.service.ts';
import { print, printJson, withDatabase } from './context.ts';

/** `minutes accounts create`. */
export function registerAccountsCommands(program: Command): void {
  const accounts = program.command('accounts').description('manage accounts');

  accounts
    .command('create')
    .description('create an account and print its id (then: keys create --account EMAIL)')
    .requiredOption('--email <email>', 'the account email (unique, case-insensitive)')
    .option('--name <name>', 'a display name')
    .option('--json', 'print the account as JSON')
    .action(async (opts: { email: string; name?: string; json?: boolean }) => {
      const account = await withDatabase(({ db }) =>
        createAccount(db, { email: opts.email, name: opts.name }),
      );
      if (opts.json) printJson(account);
      else print(account.id);
    });
}
