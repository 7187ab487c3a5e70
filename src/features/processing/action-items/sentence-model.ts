import fs from 'node:fs/promises';
import type { Config } from '../../../config.ts';
import type { Precision } from '../../search/embedders/minilm/bert-graph.ts';
import { ensureOnnxModel, packagedMiniLm } from '../../search/embedders/minilm/model-file.ts';

/**
 * all-MiniLM-L6-v2 in the processing thread, for the action-item detector's sentence vectors. The analysis runs
 * in a processing thread (pool/), never on the event loop, so the thread runs the model itself: its own
 * onnxruntime session, loaded on the first analysis that asks for it and kept for the thread's life, one
 * intra-op thread (the processing threads already share the cores), the same model file, tokenizer, pooling and
 * normalisation as the search embedder (embedders/minilm-embedder.ts and minilm/inference-worker.ts), so a
 * sentence's vector is the one the detector was trained on (bench/ingest/sentence-vectors.ts). Only the few
 * sentences `sentencesToEmbed` picks are embedded (the rules' candidates: a few dozen in an hour's meeting).
 *
 * When the model cannot be had (EMBEDDER=glove/none: no settings; onnxruntime or the package missing; the model
 * not loadable) there are no vectors and the detector uses its words-only weights.
 */
export interface SentenceModelSettings {
  /** MODELS_DIR: where the search embedder builds the ONNX model (built here too if it is not there yet). */
  modelsDir: string;
  precision: Precision;
}

/** Unit vectors of the texts, in order. */
export type EmbedSentences = (texts: readonly string[]) => Promise<Float32Array[]>;

const MAX_TOKENS = 256;
const CLS = 101;
const SEP = 102;

interface OrtLike {
  Tensor: new (type: 'int64', data: BigInt64Array, dims: number[]) => unknown;
  InferenceSession: {
    create(
      path: string,
      options: Record<string, unknown>,
    ): Promise<{ run(feeds: Record<string, unknown>): Promise<Record<string, { data: ArrayLike<number> }>> }>;
  };
}

const loaded = new Map<string, Promise<EmbedSentences | undefined>>();

/** The thread's sentence model for these settings, loaded once; undefined when it cannot be had. */
export function sentenceModel(settings: SentenceModelSettings): Promise<EmbedSentences | undefined> {
  const key = `${settings.modelsDir}\0${settings.precision}`;
  let model = loaded.get(key);
  if (!model) {
    model = load(settings).catch(() => undefined);
    loaded.set(key, model);
  }
  return model;
}

async function load(settings: SentenceModelSettings): Promise<EmbedSentences> {
  const source = await packagedMiniLm();
  const { file } = await ensureOnnxModel(settings.modelsDir, source, settings.precision);
  const ort = (await import('onnxruntime-node')) as unknown as OrtLike;
  const { Tokenizer } = await import('@huggingface/tokenizers');
  const tokenizer = new Tokenizer(JSON.parse(await fs.readFile(source.tokenizerPath, 'utf8')), {});
  const session = await ort.InferenceSession.create(file, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
  });
  // One text per run, unpadded: a text's vector never depends on its batch (as in the search embedder).
  const embedOne = async (text: string): Promise<Float32Array> => {
    const ids = tokenizer.encode(text, { add_special_tokens: false }).ids as number[];
    const row = [CLS, ...ids.slice(0, MAX_TOKENS - 2), SEP];
    const shape = [1, row.length];
    const result = await session.run({
      input_ids: new ort.Tensor(
        'int64',
        BigInt64Array.from(row, (id) => BigInt(id)),
        shape,
      ),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(row.length).fill(1n), shape),
    });
    const pooled = result.embeddings!.data;
    const out = new Float32Array(pooled.length);
    let sum = 0;
    for (let d = 0; d < pooled.length; d++) sum += pooled[d]! * pooled[d]!;
    const norm = Math.sqrt(sum) || 1;
    for (let d = 0; d < pooled.length; d++) out[d] = pooled[d]! / norm;
    return out;
  };
  return async (texts) => {
    const out: Float32Array[] = [];
    for (const text of texts) out.push(await embedOne(text));
    return out;
  };
}

/** The sentence model the configuration gives the analyzer: the search embedder's, when it is all-MiniLM-L6-v2. */
export function sentenceModelSettings(config: Config): SentenceModelSettings | undefined {
  const { embedder, modelsDir } = config.search;
  return embedder.provider === 'builtin' ? { modelsDir, precision: embedder.precision } : undefined;
}
