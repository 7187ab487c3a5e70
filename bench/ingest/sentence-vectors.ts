import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MiniLmEmbedder } from '../../src/features/search/embedders/minilm-embedder.ts';
import type { LabelledExcerpt } from './action-item-data.ts';

/**
 * all-MiniLM-L6-v2 vectors of every sentence of the labelled excerpts, for training and measuring the detector's
 * dense features. Computed once (the product's own model and embedder, int8, one text per run) and cached under
 * data/cache/action-item-vectors/ by a hash of the sentences, so a training run after the first takes seconds.
 * The model is built under MODELS_DIR (default data/models) on first use, as `EMBEDDER=builtin` does.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CACHE = path.join(ROOT, 'data/cache/action-item-vectors');
export const DIMS = 384;

let embedder: Promise<MiniLmEmbedder> | undefined;

function model(): Promise<MiniLmEmbedder> {
  embedder ??= MiniLmEmbedder.load(process.env.MODELS_DIR ?? path.join(ROOT, 'data/models'), { threads: 1 });
  return embedder;
}

/** Closes the model's thread, if one was started. */
export async function closeSentenceModel(): Promise<void> {
  if (embedder) await (await embedder).close();
}

/** The vector of each sentence of each excerpt, in order (`vectors[excerpt][sentence]`). */
export async function sentenceVectors(excerpts: readonly LabelledExcerpt[]): Promise<Float32Array[][]> {
  const texts = excerpts.flatMap((e) => e.sentences.map((s) => s.text));
  const key = createHash('sha256').update(texts.join('\n')).digest('hex').slice(0, 16);
  const file = path.join(CACHE, `${key}.f32`);
  let flat: Float32Array;
  if (fs.existsSync(file)) {
    const buf = fs.readFileSync(file);
    flat = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  } else {
    const rows = await (await model()).embed(texts, 'passage');
    flat = new Float32Array(texts.length * DIMS);
    for (const [i, row] of rows.entries()) flat.set(row, i * DIMS);
    fs.mkdirSync(CACHE, { recursive: true });
    fs.writeFileSync(file, Buffer.from(flat.buffer, flat.byteOffset, flat.byteLength));
  }
  let at = 0;
  return excerpts.map((e) =>
    e.sentences.map(() => {
      const row = flat.subarray(at * DIMS, (at + 1) * DIMS);
      at++;
      return row;
    }),
  );
}
