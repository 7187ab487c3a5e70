import type { Config } from '../../../config.ts';
import type { Precision } from '../../search/embedders/minilm/bert-graph.ts';
import { MiniLmEmbedder } from '../../search/embedders/minilm-embedder.ts';

/**
 * all-MiniLM-L6-v2 for the action-item detector's sentence vectors, from the analysis in a processing thread
 * (pool/): the search embedder itself (embedders/minilm-embedder.ts, its model in a thread of its own), loaded on
 * the first analysis that asks for it and kept for the processing thread's life, with one intra-op thread (the
 * processing threads already share the cores). So a sentence's vector is the one search makes and the detector was
 * trained on (bench/ingest/sentence-vectors.ts). Only the few
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

const loaded = new Map<string, Promise<EmbedSentences | undefined>>();

/** The thread's sentence model for these settings, loaded once; undefined when it cannot be had. */
export function sentenceModel(settings: SentenceModelSettings): Promise<EmbedSentences | undefined> {
  const key = `${settings.modelsDir}\0${settings.precision}`;
  let model = loaded.get(key);
  if (!model) {
    model = MiniLmEmbedder.load(settings.modelsDir, { precision: settings.precision, threads: 1 }).then(
      (embedder) => (texts: readonly string[]) => embedder.embed(texts, 'passage'),
      () => undefined,
    );
    loaded.set(key, model);
  }
  return model;
}

/** The sentence model the configuration gives the analyzer: the search embedder's, when it is all-MiniLM-L6-v2. */
export function sentenceModelSettings(config: Config): SentenceModelSettings | undefined {
  const { embedder, modelsDir } = config.search;
  return embedder.provider === 'builtin' ? { modelsDir, precision: embedder.precision } : undefined;
}
