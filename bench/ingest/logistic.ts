import {
  type DetectorWeights,
  featureBuckets,
  sigmoid,
} from '../../src/features/processing/action-items/detector.ts';
import { FEATURES_VERSION } from '../../src/features/processing/action-items/detector-features.ts';
import { mulberry32 } from '../../src/lib/prng.ts';

/** One training sentence: its sparse feature names, optionally a dense vector, and whether it says a task. */
export interface Example {
  features: readonly string[];
  vector?: ArrayLike<number>;
  label: number;
}

export interface TrainOptions {
  buckets?: number;
  epochs?: number;
  /** L2 penalty per example seen. */
  l2?: number;
  /** AdaGrad step size. */
  rate?: number;
  /** Weight of a positive example against a negative one (tasks are ~2 % of sentences). */
  positiveWeight?: number;
  /** Buckets seen in fewer training sentences get no weight (and are not stored). */
  minCount?: number;
  seed?: number;
}

export const DEFAULTS: Required<TrainOptions> = {
  buckets: 1 << 18,
  epochs: 30,
  l2: 1e-5,
  rate: 0.01,
  positiveWeight: 2,
  minCount: 2,
  seed: 20261124,
};

/**
 * L2-regularised logistic regression by AdaGrad over shuffled examples (a seeded shuffle: the same weights on
 * every run). Small enough to read: a few thousand sentences, a few hundred thousand hashed buckets.
 */
export function trainLogistic(
  examples: readonly Example[],
  options: TrainOptions = {},
): Omit<DetectorWeights, 'keepThreshold' | 'addThreshold'> {
  const o = { ...DEFAULTS, ...options };
  const rows = examples.map((e) => featureBuckets(e.features, o.buckets));
  const count = new Uint32Array(o.buckets);
  for (const row of rows) for (const b of row) count[b]!++;
  const kept = rows.map((row) => row.filter((b) => count[b]! >= o.minCount));
  const dim = examples.find((e) => e.vector)?.vector?.length ?? 0;
  const w = new Float64Array(o.buckets);
  const g2 = new Float64Array(o.buckets).fill(1e-8);
  const dw = new Float64Array(dim);
  const dg2 = new Float64Array(dim).fill(1e-8);
  let bias = 0;
  let biasG2 = 1e-8;
  const next = mulberry32(o.seed);
  const order = examples.map((_, i) => i);
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const i of order) {
      const e = examples[i]!;
      const row = kept[i]!;
      let z = bias;
      for (const b of row) z += w[b]!;
      const v = e.vector;
      if (v && dim) for (let d = 0; d < dim; d++) z += dw[d]! * v[d]!;
      const weight = e.label ? o.positiveWeight : 1;
      const grad = (sigmoid(z) - e.label) * weight;
      for (const b of row) {
        const g = grad + o.l2 * w[b]!;
        g2[b]! += g * g;
        w[b]! -= (o.rate * g) / Math.sqrt(g2[b]!);
      }
      if (v && dim) {
        for (let d = 0; d < dim; d++) {
          const g = grad * v[d]! + o.l2 * dw[d]!;
          dg2[d]! += g * g;
          dw[d]! -= (o.rate * g) / Math.sqrt(dg2[d]!);
        }
      }
      biasG2 += grad * grad;
      bias -= (o.rate * grad) / Math.sqrt(biasG2);
    }
  }
  const sparse: Record<string, number> = {};
  for (let b = 0; b < o.buckets; b++) {
    const rounded = Math.round(w[b]! * 1e4) / 1e4;
    if (rounded !== 0) sparse[String(b)] = rounded;
  }
  return {
    version: 1,
    features: FEATURES_VERSION,
    buckets: o.buckets,
    bias: Math.round(bias * 1e4) / 1e4,
    sparse,
    ...(dim ? { dense: [...dw].map((x) => Math.round(x * 1e4) / 1e4) } : {}),
  };
}
