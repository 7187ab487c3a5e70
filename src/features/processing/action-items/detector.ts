import type { Sentence } from '../sentences.ts';
import { FEATURES_VERSION, type FeatureContext, sentenceFeatures } from './detector-features.ts';
import weightsFile from './detector-weights.json' with { type: 'json' };

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
  weights: DetectorWeights;
  /** Probability that each sentence carries a task, in order. */
  score(
    sentences: readonly Sentence[],
    context: FeatureContext,
    vectors?: readonly (ArrayLike<number> | undefined)[],
  ): number[];
}

export function createDetector(weights: DetectorWeights): Detector {
  if (weights.features !== FEATURES_VERSION)
    throw new Error(
      `action-item detector weights are for features v${weights.features}, the code extracts v${FEATURES_VERSION}: run npm run train:action-items`,
    );
  const table = new Float64Array(weights.buckets);
  for (const [bucket, w] of Object.entries(weights.sparse)) table[Number(bucket)] = w;
  return {
    weights,
    score(sentences, context, vectors) {
      const features = sentenceFeatures(sentences, context);
      return features.map((f, i) => {
        let z = weights.bias;
        for (const b of featureBuckets(f, weights.buckets)) z += table[b]!;
        const v = vectors?.[i];
        if (weights.dense && v && v.length === weights.dense.length) {
          for (let d = 0; d < v.length; d++) z += weights.dense[d]! * v[d]!;
        }
        return sigmoid(z);
      });
    },
  };
}

let shipped: Detector | undefined;

/** The detector with the weights shipped in the repository (`detector-weights.json`), compiled once. */
export function defaultDetector(): Detector {
  shipped ??= createDetector(weightsFile as DetectorWeights);
  return shipped;
}
