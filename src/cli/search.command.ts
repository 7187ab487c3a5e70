import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { runModelsPullCommand, runReindexCommand } from '../features/search/search.commands.ts';
import { print, printJson, withDatabase } from './context.ts';

/** `minutes reindex` and `minutes models pull`: the search index and the local embedding model. */
export function registerSearchCommands(program: Command): void {
  program
    .command('reindex')
    .description('rebuild the search index of every note with the configured embedder (EMBEDDER)')
    .option('--json', 'print {notes, chunks, seconds} as JSON')
    .action(async (opts: { json?: boolean }) => {
      await withDatabase(async (deps) => {
        const summary = await runReindexCommand(deps);
        if (opts.json) printJson(summary);
        else
          print(
            `Reindexed ${summary.notes} notes (${summary.chunks} chunks) in ${summary.seconds.toFixed(1)} s.`,
          );
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
