import { Command } from 'commander';
import { registerAccountsCommands } from './cli/accounts.command.ts';
import { UsageError } from './cli/context.ts';
import { registerExportCommand } from './cli/export.command.ts';
import { registerImportCommand } from './cli/import.command.ts';
import { registerKeysCommands } from './cli/keys.command.ts';
import { registerSearchCommands } from './cli/search.command.ts';
import { registerServerCommands } from './cli/server.command.ts';
import { describeError } from './cli/shutdown.ts';
import { ConfigError } from './config.ts';
import { AppError } from './lib/errors.ts';
import { VERSION } from './lib/version.ts';

/** The `minutes` command (bin/minutes.js). Every command reads DATA_DIR / DATABASE_URL through loadConfig. */
export function buildCli(): Command {
  const program = new Command('minutes')
    .description(
      'Minutes: notes from recordings, over a REST API, webhooks and MCP.\n' +
        'Settings come from the environment (PORT, DATA_DIR, DATABASE_URL, …; see README.md).',
    )
    .version(VERSION);
  registerServerCommands(program);
  registerKeysCommands(program);
  registerAccountsCommands(program);
  registerImportCommand(program);
  registerExportCommand(program);
  registerSearchCommands(program);
  return program;
}

/** Runs the CLI; a user mistake prints one line on stderr and exits 1, never a stack trace. */
export async function runCli(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof AppError || err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n`);
    } else {
      process.stderr.write(`error: ${describeError(err)}\n`);
    }
    process.exitCode = 1;
  }
}

await runCli(process.argv);
