import type { Sentence } from '../sentences.ts';
import { FEATURES_VERSION, type FeatureContext, sentenceFeatures } from './detector-features.ts';
import weightsFile from './detector-weights.json' with { type: 'json' };
import vectorWeightsFile from './detector-weights.vectors.json' with { type: 'json' };

/**
 * The learned action-item detector: a logistic regression over hashed sparse features of a sentence (words, word
 * pairs, turn structure, modal and person cues; `detector-features.ts`) and, when the weights have them and a
 * sentence model gave vectors, the sentence vectors. It says how likely a sentence carries a task; the rules
 * (`extract-action-items.ts`) say what the task is, for whom and by when. Trained by `npm run train:action-items`
 * (bench/ingest/train-action-items.ts) from the labelled QMSum excerpts; pure and fast (a hash and a sum per
 * feature).
 */
export interface DetectorWeights {
  /** Version of this file's format and of the training that made it. */
  version: number;
  /** `FEATURES_VERSION` the weights were trained with; others do not apply. */
  features: number;
  /** Hash buckets of the sparse features (a power of two). */
  buckets: number;
  bias: number;
  /** Weight by bucket, only the buckets that carry one. */
  sparse: Record<string, number>;
  /** Weights of the sentence-vector dimensions, when trained with vectors (absent: vectors are ignored). */
  dense?: number[];
  /** Probability at or above which a sentence the rules found a task in keeps it. */
  keepThreshold: number;
  /** Probability at or above which a sentence the rules found nothing in still yields an item. */
  addThreshold: number;
  /**
   * Words-only weights: probability at or above which a sentence no rule matched is worth a sentence vector
   * (at most `addThreshold`: a sentence below it cannot yield an item with these weights either).
   */
  embedThreshold?: number;
  /**
   * Probability below which even a commitment of the rules ("I'll …", "we need to …", a request by name) is
   * dropped, unless it has a due date; absent or 0: never. The weights with sentence vectors have one: they tell
   * a promise about meeting business from a task well enough (decision in docs/decisions.md).
   */
  keepCommittedThreshold?: number;
  /** What the weights were trained on, for the record. */
  trainedOn?: string;
}

/** FNV-1a over UTF-16 code units: a stable hash of a feature name, the same in training and at run time. */
export function hashFeature(name: string, buckets: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & (buckets - 1);
}

/** The distinct buckets a sentence's features fall in. */
export function featureBuckets(features: readonly string[], buckets: number): number[] {
  return [...new Set(features.map((f) => hashFeature(f, buckets)))];
}

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-Math.max(-30, Math.min(30, z))));

/** A compiled model: weights in a typed array for fast lookups. */
export interface Detector {
  /** The words-only weights (used for sentences without a vector). */
  weights: DetectorWeights;
  /** The weights with sentence vectors (used for sentences with one), when there are any. */
  vectorWeights?: DetectorWeights;
  /**
   * Probability that each sentence carries a task, in order: under the vector weights for a sentence that has a
   * vector (`vectors[i]`, when the detector has such weights), under the words-only weights otherwise.
   */
  score(
    sentences: readonly Sentence[],
    context: FeatureContext,
    vectors?: readonly (ArrayLike<number> | undefined)[],
  ): number[];
  /** The keep and add thresholds of the weights that scored a sentence with or without a vector. */
  thresholds(withVector: boolean): { keep: number; add: number; keepCommitted: number };
}

interface Compiled {
  weights: DetectorWeights;
  table: Float64Array;
}

function compile(weights: DetectorWeights): Compiled {
  if (weights.features !== FEATURES_VERSION)
    throw new Error(
      `action-item detector weights are for features v${weights.features}, the code extracts v${FEATURES_VERSION}: run npm run train:action-items`,
    );
  const table = new Float64Array(weights.buckets);
  for (const [bucket, w] of Object.entries(weights.sparse)) table[Number(bucket)] = w;
  return { weights, table };
}

function probability(model: Compiled, features: readonly string[], vector?: ArrayLike<number>): number {
  const { weights, table } = model;
  let z = weights.bias;
  for (const b of featureBuckets(features, weights.buckets)) z += table[b]!;
  if (weights.dense && vector && vector.length === weights.dense.length) {
    for (let d = 0; d < vector.length; d++) z += weights.dense[d]! * vector[d]!;
  }
  return sigmoid(z);
}

/**
 * A detector from words-only weights and, optionally, weights trained with sentence vectors. Words-only weights
 * that carry `dense` weights themselves use a sentence's vector when given one.
 */
export function createDetector(weights: DetectorWeights, vectorWeights?: DetectorWeights): Detector {
  const words = compile(weights);
  const withVectors = vectorWeights ? compile(vectorWeights) : weights.dense ? words : undefined;
  return {
    weights,
    ...(vectorWeights ? { vectorWeights } : {}),
    score(sentences, context, vectors) {
      const features = sentenceFeatures(sentences, context);
      return features.map((f, i) => {
        const v = vectors?.[i];
        return v && withVectors ? probability(withVectors, f, v) : probability(words, f);
      });
    },
    thresholds(withVector) {
      const w = withVector && withVectors ? withVectors.weights : weights;
      return { keep: w.keepThreshold, add: w.addThreshold, keepCommitted: w.keepCommittedThreshold ?? 0 };
    },
  };
}

let shipped: Detector | undefined;

/**
 * The detector with the weights shipped in the repository, compiled once: `detector-weights.json` (words
 * only) and `detector-weights.vectors.json` (words and all-MiniLM-L6-v2 sentence vectors).
 */
export function defaultDetector(): Detector {
  shipped ??= createDetector(weightsFile as DetectorWeights, vectorWeightsFile as DetectorWeights);
  return shipped;
}
