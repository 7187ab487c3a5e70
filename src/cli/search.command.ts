import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { runModelsPullCommand, runReindexCommand } from '../features/search/search.commands.ts';
import { createLogger } from '../lib/logger.ts';
import { print, withDatabase } from './context.ts';

/** `minutes reindex` and `minutes models pull`: the search index and the local embedding model. */
export function registerSearchCommands(program: Command): void {
  program
    .command('reindex')
    .description('rebuild the search index of every note with the configured embedder (EMBEDDER)')
    .action(async () => {
      await withDatabase(async (ctx) => {
        const deps = { ...ctx, logger: createLogger(ctx.config.logLevel), wakeWorker: () => {} };
        print(await runReindexCommand(deps));
      });
    });
  program
    .command('models')
    .description('manage local embedding models')
    .command('pull')
    .description('download the transformers embedder model (EMBEDDER_MODEL) into MODELS_DIR; needs internet')
    .action(async () => {
      print(await runModelsPullCommand(loadConfig()));
    });
}
