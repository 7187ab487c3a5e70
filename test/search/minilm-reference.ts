// A plain-TypeScript forward pass of all-MiniLM-L6-v2 (BERT: embeddings, 6 layers of self-attention and GELU
// feed-forward with LayerNorm, mean pooling, L2 norm) over the packaged fp16 safetensors, written for the golden
// test only: it shares no code with src/features/search/embedders/minilm (its own safetensors reader, fp16
// decoding and arithmetic in Float64), so the ONNX graph the service builds is checked against it.
import fs from 'node:fs';

interface Entry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

function f16(bits: number): number {
  const e = (bits >>> 10) & 31;
  const m = bits & 1023;
  const s = bits >>> 15 ? -1 : 1;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? Number.NaN : s * Number.POSITIVE_INFINITY;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

export class ReferenceMiniLm {
  private readonly tensors = new Map<string, Float64Array>();

  constructor(weightsPath: string) {
    const buf = fs.readFileSync(weightsPath);
    const n = Number(buf.readBigUInt64LE(0));
    const header = JSON.parse(buf.toString('utf8', 8, 8 + n)) as Record<string, Entry>;
    for (const [name, entry] of Object.entries(header)) {
      if (name === '__metadata__' || entry.dtype !== 'F16') continue;
      const [a, b] = entry.data_offsets;
      const out = new Float64Array((b - a) / 2);
      for (let i = 0; i < out.length; i++) out[i] = f16(buf.readUInt16LE(8 + n + a + 2 * i));
      this.tensors.set(name, out);
    }
  }

  private w(name: string): Float64Array {
    const t = this.tensors.get(name);
    if (!t) throw new Error(name);
    return t;
  }

  /** y[s][o] = Σ_i x[s][i] · W[o][i] + b[o] (torch Linear layout). */
  private linear(x: Float64Array[], prefix: string): Float64Array[] {
    const W = this.w(`${prefix}.weight`);
    const b = this.w(`${prefix}.bias`);
    const inDim = x[0]!.length;
    const outDim = b.length;
    return x.map((row) => {
      const y = new Float64Array(outDim);
      for (let o = 0; o < outDim; o++) {
        let sum = b[o]!;
        const base = o * inDim;
        for (let i = 0; i < inDim; i++) sum += row[i]! * W[base + i]!;
        y[o] = sum;
      }
      return y;
    });
  }

  private layerNorm(x: Float64Array[], prefix: string): Float64Array[] {
    const g = this.w(`${prefix}.weight`);
    const b = this.w(`${prefix}.bias`);
    return x.map((row) => {
      const mean = row.reduce((a, v) => a + v, 0) / row.length;
      const variance = row.reduce((a, v) => a + (v - mean) ** 2, 0) / row.length;
      const inv = 1 / Math.sqrt(variance + 1e-12);
      return row.map((v, i) => (v - mean) * inv * g[i]! + b[i]!);
    });
  }

  /** Sentence embedding of one token-id sequence (with [CLS]/[SEP]), unit length. */
  embed(ids: number[]): Float64Array {
    const H = 384;
    const heads = 12;
    const d = H / heads;
    const word = this.w('embeddings.word_embeddings.weight');
    const pos = this.w('embeddings.position_embeddings.weight');
    const type = this.w('embeddings.token_type_embeddings.weight');
    let x: Float64Array[] = ids.map((id, p) => {
      const row = new Float64Array(H);
      for (let i = 0; i < H; i++) row[i] = word[id * H + i]! + pos[p * H + i]! + type[i]!;
      return row;
    });
    x = this.layerNorm(x, 'embeddings.LayerNorm');
    const S = ids.length;
    for (let l = 0; l < 6; l++) {
      const p = `encoder.layer.${l}`;
      const q = this.linear(x, `${p}.attention.self.query`);
      const k = this.linear(x, `${p}.attention.self.key`);
      const v = this.linear(x, `${p}.attention.self.value`);
      const ctx = Array.from({ length: S }, () => new Float64Array(H));
      for (let h = 0; h < heads; h++) {
        for (let i = 0; i < S; i++) {
          const scores = new Float64Array(S);
          let max = Number.NEGATIVE_INFINITY;
          for (let j = 0; j < S; j++) {
            let s = 0;
            for (let c = 0; c < d; c++) s += q[i]![h * d + c]! * k[j]![h * d + c]!;
            scores[j] = s / Math.sqrt(d);
            max = Math.max(max, scores[j]!);
          }
          let total = 0;
          for (let j = 0; j < S; j++) {
            scores[j] = Math.exp(scores[j]! - max);
            total += scores[j]!;
          }
          for (let j = 0; j < S; j++) {
            const a = scores[j]! / total;
            for (let c = 0; c < d; c++) ctx[i]![h * d + c]! += a * v[j]![h * d + c]!;
          }
        }
      }
      const attn = this.linear(ctx, `${p}.attention.output.dense`);
      x = this.layerNorm(
        attn.map((row, i) => row.map((val, c) => val + x[i]![c]!)),
        `${p}.attention.output.LayerNorm`,
      );
      const inter = this.linear(x, `${p}.intermediate.dense`).map((row) =>
        row.map((val) => 0.5 * val * (1 + erf(val / Math.SQRT2))),
      );
      const out = this.linear(inter, `${p}.output.dense`);
      x = this.layerNorm(
        out.map((row, i) => row.map((val, c) => val + x[i]![c]!)),
        `${p}.output.LayerNorm`,
      );
    }
    const mean = new Float64Array(H);
    for (const row of x) for (let c = 0; c < H; c++) mean[c]! += row[c]! / S;
    const norm = Math.sqrt(mean.reduce((a, v) => a + v * v, 0));
    return mean.map((v) => v / norm);
  }
}

/** erf by Abramowitz & Stegun 7.1.26 refined with a series for small |x| (error < 1e-12 where it matters). */
function erf(x: number): number {
  const ax = Math.abs(x);
  if (ax < 3) {
    // Maclaurin series: converges well below 3.
    let term = ax;
    let sum = ax;
    for (let n = 1; n < 200; n++) {
      term *= (-ax * ax) / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17) break;
    }
    return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * sum;
  }
  return Math.sign(x) * (1 - erfcLarge(ax));
}

/** Continued fraction for erfc at |x| ≥ 3. */
function erfcLarge(x: number): number {
  let f = 0;
  for (let n = 60; n >= 1; n--) f = n / 2 / (x + f);
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / (x + f);
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}
