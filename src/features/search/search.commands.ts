import cliProgress from 'cli-progress';
import type { Config } from '../../config.ts';
import type { Deps } from '../../deps.ts';
import { pullModel } from './embedders/transformers-embedder.ts';
import { reindexAll } from './index-note.ts';

export interface ReindexSummary {
  notes: number;
  chunks: number;
  seconds: number;
}

/**
 * `npx minutes reindex`: rebuilds the search index with the configured embedder. A progress bar on stderr
 * when it is a terminal; nothing at all otherwise (scripts read the summary on stdout).
 */
export async function runReindexCommand(
  deps: Deps,
  stream: NodeJS.WriteStream = process.stderr,
): Promise<ReindexSummary> {
  const bar = stream.isTTY
    ? new cliProgress.SingleBar(
        {
          format: 'reindexing notes [{bar}] {value}/{total} ({percentage} %) eta {eta_formatted}',
          stream,
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  let started = false;
  try {
    const result = await reindexAll(deps, ({ phase, done, total }) => {
      if (!started) {
        bar?.start(total, 0);
        started = true;
      }
      if (phase === 'notes') bar?.update(done);
    });
    return { notes: result.notes, chunks: result.chunks, seconds: Math.round(result.seconds * 10) / 10 };
  } finally {
    if (started) bar?.stop();
  }
}

/**
 * `npx minutes models pull`: downloads the transformers embedder's model (EMBEDDER_MODEL, default
 * Xenova/bge-small-en-v1.5) into MODELS_DIR. Needs access to the Hugging Face hub; elsewhere copy the folder.
 */
export async function runModelsPullCommand(
  config: Config,
  stream: NodeJS.WriteStream = process.stderr,
): Promise<string> {
  const settings = config.search.embedder;
  const model = settings.provider === 'transformers' ? settings.model : 'Xenova/bge-small-en-v1.5';
  const seen = new Set<string>();
  const path = await pullModel(config.search.modelsDir, model, (event) => {
    if (event.status === 'done' && event.file && !seen.has(event.file)) {
      seen.add(event.file);
      stream.write(`downloaded ${event.file}\n`);
    }
  });
  return `Model ${model} is in ${path}. Set EMBEDDER=transformers (and EMBEDDER_MODEL=${model}) to use it, then run \`npx minutes reindex\`.`;
}
