import fs from 'node:fs';
import path from 'node:path';
import { type Embedder, EmbedderError, type EmbedKind, normalize } from './embedder.ts';

/** What a local sentence model needs to be used well: pooling and the prefixes it was trained with. */
interface ModelRecipe {
  pooling: 'cls' | 'mean';
  queryPrefix: string;
  passagePrefix: string;
}

function recipeFor(model: string): ModelRecipe {
  const name = model.toLowerCase();
  if (name.includes('bge-') && name.includes('-en')) {
    return {
      pooling: 'cls',
      queryPrefix: 'Represent this sentence for searching relevant passages: ',
      passagePrefix: '',
    };
  }
  if (name.includes('e5-')) return { pooling: 'mean', queryPrefix: 'query: ', passagePrefix: 'passage: ' };
  return { pooling: 'mean', queryPrefix: '', passagePrefix: '' };
}

type FeatureExtractor = (
  texts: string[],
  options: { pooling: 'cls' | 'mean'; normalize: boolean },
) => Promise<{ tolist(): number[][]; dims: number[]; dispose?(): void }>;

interface TransformersModule {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string; cacheDir: string };
  pipeline(
    task: 'feature-extraction',
    model: string,
    options: Record<string, unknown>,
  ): Promise<FeatureExtractor>;
}

/** The opt-in package (not installed by default: it brings about 180 MB that the default setup never loads). */
export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';
/** The one line that installs it (README, Search). */
export const TRANSFORMERS_INSTALL = 'npm install --no-save @huggingface/transformers@4.3.1';

/** `@huggingface/transformers` is opt-in: loaded only when this embedder is configured. */
async function importTransformers(): Promise<TransformersModule> {
  try {
    // A variable specifier: the package is not a dependency, so neither tsc nor the bundler should resolve it.
    const specifier: string = TRANSFORMERS_PACKAGE;
    return (await import(specifier)) as TransformersModule;
  } catch (err) {
    const missing = (err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND';
    throw new EmbedderError(
      missing
        ? `EMBEDDER=transformers needs the package ${TRANSFORMERS_PACKAGE}, which is not installed (it is opt-in). ` +
            `Install it with \`${TRANSFORMERS_INSTALL}\`, or set EMBEDDER=builtin.`
        : `EMBEDDER=transformers could not load ${TRANSFORMERS_PACKAGE}: ${(err as Error).message}`,
    );
  }
}

/** The quantised weights every supported model ships (transformers.js layout). */
const WEIGHTS = path.join('onnx', 'model_quantized.onnx');

/** Where `models pull` puts a model and where the embedder looks for it. */
export function modelPath(modelsDir: string, model: string): string {
  return path.join(modelsDir, ...model.split('/'));
}

/** True when the model's config, tokenizer and quantised weights are all present. */
export function isModelPresent(modelsDir: string, model: string): boolean {
  const dir = modelPath(modelsDir, model);
  return ['config.json', 'tokenizer.json', WEIGHTS].every((f) => fs.existsSync(path.join(dir, f)));
}

/**
 * A local ONNX sentence model (default `Xenova/bge-small-en-v1.5`, int8) run in-process by transformers.js.
 * Never downloads: the model must be in MODELS_DIR (`npx minutes models pull` fetches it where the internet is
 * reachable, or copy the folder there). CLS pooling and the query instruction for BGE, prefixes for E5.
 */
export class TransformersEmbedder implements Embedder {
  readonly id: string;
  private constructor(
    readonly dims: number,
    private readonly model: string,
    private readonly extract: FeatureExtractor,
    private readonly recipe: ModelRecipe,
  ) {
    this.id = `transformers:${model}:q8`;
  }

  /** Loads the model from `modelsDir`; a clear EmbedderError when it (or the package) is missing. */
  static async load(modelsDir: string, model: string): Promise<TransformersEmbedder> {
    if (!isModelPresent(modelsDir, model)) {
      throw new EmbedderError(
        `The transformers embedder needs the model '${model}' in ${modelPath(modelsDir, model)}, which is missing. ` +
          'Run `npx minutes models pull` on a machine with internet access (or copy the model folder there), ' +
          'or set EMBEDDER=builtin.',
      );
    }
    const transformers = await importTransformers();
    transformers.env.allowRemoteModels = false;
    transformers.env.allowLocalModels = true;
    transformers.env.localModelPath = modelsDir;
    let extract: FeatureExtractor;
    try {
      extract = await transformers.pipeline('feature-extraction', model, { dtype: 'q8' });
    } catch (err) {
      throw new EmbedderError(
        `Could not load the model '${model}' from ${modelPath(modelsDir, model)}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const recipe = recipeFor(model);
    const probe = await extract(['probe'], { pooling: recipe.pooling, normalize: true });
    const dims = probe.dims[probe.dims.length - 1] ?? 0;
    probe.dispose?.();
    return new TransformersEmbedder(dims, model, extract, recipe);
  }

  async embed(texts: readonly string[], kind: EmbedKind): Promise<Float32Array[]> {
    const prefix = kind === 'query' ? this.recipe.queryPrefix : this.recipe.passagePrefix;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += 16) {
      const batch = texts.slice(i, i + 16).map((t) => prefix + t);
      const tensor = await this.extract(batch, { pooling: this.recipe.pooling, normalize: true });
      for (const row of tensor.tolist()) out.push(normalize(Float32Array.from(row)));
      tensor.dispose?.();
    }
    return out;
  }

  toString(): string {
    return `transformers model ${this.model}`;
  }
}

/**
 * Downloads the model into `modelsDir` (needs access to the Hugging Face hub), so the embedder can load it
 * offline afterwards. Reports each file's progress.
 */
export async function pullModel(
  modelsDir: string,
  model: string,
  onProgress: (event: { file: string; loaded?: number; total?: number; status: string }) => void = () => {},
): Promise<string> {
  const transformers = await importTransformers();
  fs.mkdirSync(modelsDir, { recursive: true });
  transformers.env.allowRemoteModels = true;
  transformers.env.allowLocalModels = true;
  transformers.env.localModelPath = modelsDir;
  // The file cache keys files as `<model>/<file>`, the very layout local loading reads.
  transformers.env.cacheDir = modelsDir;
  try {
    const extract = await transformers.pipeline('feature-extraction', model, {
      dtype: 'q8',
      progress_callback: (e: { status: string; file?: string; loaded?: number; total?: number }) =>
        onProgress({ status: e.status, file: e.file ?? '', loaded: e.loaded, total: e.total }),
    });
    await extract(['probe'], { pooling: recipeFor(model).pooling, normalize: true });
  } catch (err) {
    throw new EmbedderError(
      `Could not download the model '${model}': ${err instanceof Error ? err.message : String(err)}. ` +
        'The download needs access to huggingface.co; on a machine without it, copy the model folder into ' +
        `${modelPath(modelsDir, model)}.`,
    );
  } finally {
    transformers.env.allowRemoteModels = false;
  }
  if (!isModelPresent(modelsDir, model)) {
    throw new EmbedderError(
      `The download of '${model}' finished but ${modelPath(modelsDir, model)} is incomplete.`,
    );
  }
  return modelPath(modelsDir, model);
}
