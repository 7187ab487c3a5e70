import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Tokenizer } from '@huggingface/tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { dot } from '../../src/features/search/embedders/embedder.ts';
import { createEmbedder } from '../../src/features/search/embedders/load-embedder.ts';
import {
  BUILDER_VERSION,
  ensureOnnxModel,
  packagedMiniLm,
} from '../../src/features/search/embedders/minilm/model-file.ts';
import { halfToFloat } from '../../src/features/search/embedders/minilm/safetensors.ts';
import type { MiniLmEmbedder } from '../../src/features/search/embedders/minilm-embedder.ts';
import { MiniLmEmbedder as MiniLm } from '../../src/features/search/embedders/minilm-embedder.ts';
import { cosine, ReferenceMiniLm } from './minilm-reference.ts';

// The golden test of the default embedder: the ONNX graph our builder writes, run by onnxruntime, must give the
// cosines of an independent plain-TypeScript forward pass (minilm-reference.ts) over the same packaged weights.
const SENTENCES = [
  'The launch budget was exceeded.',
  'Spending went over plan.',
  'Welcome to quarterly planning. Revenue grew 8 percent.',
  'We agreed to hire two more engineers for the mobile team.',
  'Staffing for the app group will grow.',
  'The cat sat on the mat.',
];
const PAIRS: [number, number][] = [
  [0, 1],
  [0, 2],
  [1, 2],
  [3, 4],
  [3, 5],
  [1, 5],
];

describe('all-MiniLM-L6-v2 (the builtin embedder)', () => {
  let reference: Float64Array[];
  let int8: MiniLmEmbedder;
  let tokenizer: Tokenizer;

  beforeAll(async () => {
    const source = await packagedMiniLm();
    tokenizer = new Tokenizer(JSON.parse(fs.readFileSync(source.tokenizerPath, 'utf8')), {});
    const model = new ReferenceMiniLm(source.weightsPath);
    reference = SENTENCES.map((s) => model.embed(tokenizer.encode(s).ids));
    int8 = (await createEmbedder(loadConfig({ EMBEDDER: 'builtin' }))) as MiniLmEmbedder;
  }, 120_000);

  it('tokenizes with WordPiece from the package tokenizer.json', () => {
    expect(tokenizer.encode("The launch budget was exceeded, isn't it?").ids).toEqual([
      101, 1996, 4888, 5166, 2001, 14872, 1010, 3475, 1005, 1056, 2009, 1029, 102,
    ]);
  });

  it('fp32 graph: the reference forward pass gives the same cosines (±0.001)', async () => {
    const fp32 = await MiniLm.load(loadConfig({}).search.modelsDir, { precision: 'fp32', threads: 1 });
    try {
      const vectors = await fp32.embed(SENTENCES, 'passage');
      for (let i = 0; i < SENTENCES.length; i++)
        expect(cosine(vectors[i]!, reference[i]!)).toBeGreaterThan(0.9999);
      for (const [a, b] of PAIRS)
        expect(dot(vectors[a]!, vectors[b]!)).toBeCloseTo(cosine(reference[a]!, reference[b]!), 3);
    } finally {
      await fp32.close();
    }
  }, 60_000);

  it('int8 graph (the default): within 0.03 of the reference cosines, same order of pairs', async () => {
    expect(int8.id).toBe('minilm:all-MiniLM-L6-v2:int8:b1');
    expect(int8.dims).toBe(384);
    const vectors = await int8.embed(SENTENCES, 'passage');
    for (let i = 0; i < SENTENCES.length; i++) {
      expect(Math.sqrt(dot(vectors[i]!, vectors[i]!))).toBeCloseTo(1, 4);
      expect(cosine(vectors[i]!, reference[i]!)).toBeGreaterThan(0.98);
    }
    for (const [a, b] of PAIRS)
      expect(Math.abs(dot(vectors[a]!, vectors[b]!) - cosine(reference[a]!, reference[b]!))).toBeLessThan(
        0.03,
      );
    // The README's example: the paraphrase is nearer than the unrelated planning note.
    expect(dot(vectors[0]!, vectors[1]!)).toBeGreaterThan(dot(vectors[2]!, vectors[1]!));
  });

  it('gives the vectors its id names: those the first builder gave, whatever the builder version', async () => {
    // minilm-int8-vectors.json: builder 1's int8 vectors (commit 77ff36b). A builder change that moves them must
    // bump VECTORS_VERSION, so that indexes built with the old vectors wait for a reindex.
    const saved = JSON.parse(
      fs.readFileSync(path.join(import.meta.dirname, 'minilm-int8-vectors.json'), 'utf8'),
    ) as {
      embedder: string;
      texts: string[];
      vectors: string[];
    };
    expect(int8.id).toBe(saved.embedder);
    const vectors = await int8.embed(saved.texts, 'passage');
    saved.vectors.forEach((encoded, i) => {
      const bytes = Buffer.from(encoded, 'base64');
      const expected = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
      let worst = 0;
      for (let d = 0; d < expected.length; d++)
        worst = Math.max(worst, Math.abs(vectors[i]![d]! - expected[d]!));
      expect(worst).toBeLessThan(1e-4);
    });
  });

  it('keeps the event loop free while it computes (inference runs in a worker thread)', async () => {
    const passage = SENTENCES.join(' ').repeat(6);
    let turns = 0;
    let done = false;
    const work = int8
      .embed(
        Array.from({ length: 16 }, (_, i) => `${i} ${passage}`),
        'passage',
      )
      .then((v) => {
        done = true;
        return v;
      });
    while (!done) {
      await nextTurn();
      turns++;
    }
    expect((await work).length).toBe(16);
    expect(turns).toBeGreaterThan(10);
  });

  it('answers a query batch in input order, and empty input with no vectors', async () => {
    const [a, b] = await int8.embed(['Spending went over plan.', 'The cat sat on the mat.'], 'query');
    const [again] = await int8.embed(['The cat sat on the mat.'], 'query');
    expect(dot(b!, again!)).toBeCloseTo(1, 5);
    expect(dot(a!, again!)).toBeLessThan(0.5);
    expect(await int8.embed([], 'query')).toEqual([]);
  });
});

describe('the ONNX model file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-minilm-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is built once under MODELS_DIR, named by the weights hash and builder version, then reused; older builds go', async () => {
    const source = await packagedMiniLm();
    let builds = 0;
    // An older builder's file goes; a newer builder's stays (a newer process may be running beside this one).
    const older = path.join(dir, 'minilm', 'all-MiniLM-L6-v2.int8.b1.0123456789abcdef.onnx');
    const newer = path.join(dir, 'minilm', 'all-MiniLM-L6-v2.int8.b999.0123456789abcdef.onnx');
    fs.mkdirSync(path.dirname(older), { recursive: true });
    fs.writeFileSync(older, 'old');
    fs.writeFileSync(newer, 'new');
    const first = await ensureOnnxModel(dir, source, 'int8', () => builds++);
    expect(fs.existsSync(older)).toBe(false);
    expect(fs.existsSync(newer)).toBe(true);
    const second = await ensureOnnxModel(dir, source, 'int8', () => builds++);
    expect(first.built).toBe(true);
    expect(second).toEqual({ file: first.file, built: false });
    expect(builds).toBe(1);
    expect(path.basename(first.file)).toMatch(
      new RegExp(`^all-MiniLM-L6-v2\\.int8\\.b${BUILDER_VERSION}\\.[0-9a-f]{16}\\.onnx$`),
    );
    expect(fs.readdirSync(path.dirname(first.file)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }, 60_000);

  it('decodes fp16 exactly', () => {
    expect(halfToFloat(0x3c00)).toBe(1);
    expect(halfToFloat(0xc000)).toBe(-2);
    expect(halfToFloat(0x0001)).toBe(2 ** -24);
    expect(halfToFloat(0x7bff)).toBe(65504);
  });
});
