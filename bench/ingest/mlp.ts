import { mulberry32 } from '../../src/lib/prng.ts';

/** One dense training row: its inputs and whether it says a task. */
export interface DenseExample {
  x: Float32Array;
  y: number;
}

export interface MlpOptions {
  hidden?: number;
  epochs?: number;
  /** Adam step size. */
  rate?: number;
  /** L2 penalty on every weight. */
  l2?: number;
  /** Weight of a positive example against a negative one. */
  positiveWeight?: number;
  batch?: number;
  seed?: number;
}

const DEFAULTS: Required<MlpOptions> = {
  hidden: 48,
  epochs: 10,
  rate: 1e-3,
  l2: 1e-4,
  positiveWeight: 4,
  batch: 32,
  seed: 7,
};

/**
 * A one-hidden-layer perceptron (tanh, sigmoid out) trained by Adam over seeded shuffles: the non-linear model
 * `detector-ceiling.ts` sets beside the shipped logistic regression. Returns the trained scorer.
 */
export function trainMlp(
  rows: readonly DenseExample[],
  options: MlpOptions = {},
): (x: Float32Array) => number {
  const o = { ...DEFAULTS, ...options };
  const H = o.hidden;
  const I = rows[0]!.x.length;
  const next = mulberry32(o.seed);
  const w1 = new Float64Array(H * I).map(() => (next() - 0.5) * 8 * Math.sqrt(1 / I));
  const b1 = new Float64Array(H);
  const w2 = new Float64Array(H).map(() => (next() - 0.5) * 0.2);
  const b2 = new Float64Array([-3]);
  const params = [w1, b1, w2, b2];
  const grads = params.map((p) => new Float64Array(p.length));
  const m = params.map((p) => new Float64Array(p.length));
  const v = params.map((p) => new Float64Array(p.length));
  const h = new Float64Array(H);
  const hidden = (x: Float32Array) => {
    for (let a = 0; a < H; a++) {
      let acc = b1[a]!;
      const off = a * I;
      for (let d = 0; d < I; d++) acc += w1[off + d]! * x[d]!;
      h[a] = Math.tanh(acc);
    }
  };
  const output = () => {
    let z = b2[0]!;
    for (let a = 0; a < H; a++) z += w2[a]! * h[a]!;
    return 1 / (1 + Math.exp(-z));
  };
  const order = rows.map((_, i) => i);
  let step = 0;
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (let start = 0; start < order.length; start += o.batch) {
      for (const g of grads) g.fill(0);
      const [gw1, gb1, gw2, gb2] = grads as [Float64Array, Float64Array, Float64Array, Float64Array];
      const end = Math.min(order.length, start + o.batch);
      for (let k = start; k < end; k++) {
        const { x, y } = rows[order[k]!]!;
        hidden(x);
        const g = (output() - y) * (y ? o.positiveWeight : 1);
        gb2[0]! += g;
        for (let a = 0; a < H; a++) {
          gw2[a]! += g * h[a]!;
          const gh = g * w2[a]! * (1 - h[a]! * h[a]!);
          gb1[a]! += gh;
          const off = a * I;
          for (let d = 0; d < I; d++) gw1[off + d]! += gh * x[d]!;
        }
      }
      step++;
      const c1 = 1 - 0.9 ** step;
      const c2 = 1 - 0.999 ** step;
      params.forEach((p, pi) => {
        const [g, mp, vp] = [grads[pi]!, m[pi]!, v[pi]!];
        for (let q = 0; q < p.length; q++) {
          const gq = g[q]! / (end - start) + o.l2 * p[q]!;
          mp[q] = 0.9 * mp[q]! + 0.1 * gq;
          vp[q] = 0.999 * vp[q]! + 0.001 * gq * gq;
          p[q]! -= (o.rate * (mp[q]! / c1)) / (Math.sqrt(vp[q]! / c2) + 1e-8);
        }
      });
    }
  }
  return (x) => {
    hidden(x);
    return output();
  };
}
