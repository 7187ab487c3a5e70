import fs from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { dot, EmbedderError } from '../../src/features/search/embedders/embedder.ts';
import { buildGloveCache, readGloveCache } from '../../src/features/search/embedders/glove-cache.ts';
import { createEmbedder } from '../../src/features/search/embedders/load-embedder.ts';
import { OpenAiEmbedder } from '../../src/features/search/embedders/openai-embedder.ts';
import { TransformersEmbedder } from '../../src/features/search/embedders/transformers-embedder.ts';

const norm = (v: Float32Array) => Math.sqrt(dot(v, v));

describe('GloVe embedder (EMBEDDER=glove: GloVe + SIF)', () => {
  const config = loadConfig({ EMBEDDER: 'glove' });

  it('is deterministic, unit length, and puts paraphrases closer than unrelated text', async () => {
    const embedder = await createEmbedder(config);
    expect(embedder.id).toBe('builtin:glove-sg-100d-sif:v1');
    expect(embedder.dims).toBe(100);
    const [a, b, c, d] = await embedder.embed(
      [
        'spending went over plan',
        'the budget was exceeded',
        'the children played football in the park',
        'spending went over plan',
      ],
      'passage',
    );
    expect(Array.from(d!)).toEqual(Array.from(a!));
    expect(norm(a!)).toBeCloseTo(1, 5);
    expect(dot(a!, b!)).toBeGreaterThan(0.4);
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!) + 0.3);
  });

  it('gives the zero vector to text without known words, and ignores question phrasing in queries', async () => {
    const embedder = await createEmbedder(config);
    const [none] = await embedder.embed(['🎉 ?!', 'qqqzzzxxx'], 'query');
    expect(norm(none!)).toBe(0);
    const [q1, q2] = await embedder.embed(['what did they say about the budget', 'budget'], 'query');
    expect(dot(q1!, q2!)).toBeCloseTo(1, 5);
  });

  it('converts the npm JSON once into a compact cache that reads back the same vectors', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-glove-'));
    try {
      const source = path.join(dir, 'tiny.json');
      fs.writeFileSync(
        source,
        JSON.stringify({
          precision: 8,
          dimensions: 4,
          words: ['the', 'budget', 'über'],
          vectors: { the: [1, 0, 0, 0, 1, 0], budget: [0, 0.5, -0.25, 0, 0.6, 1], über: [0, 0, 0, 2, 2, 2] },
          unkVector: [0, 0, 0, 0],
        }),
      );
      const target = path.join(dir, 'cache.bin');
      await buildGloveCache(source, target);
      const table = readGloveCache(target);
      expect(table.count).toBe(3);
      expect(table.dims).toBe(4);
      expect(table.index.get('budget')).toBe(1);
      expect(table.index.get('über')).toBe(2);
      const at = (rank: number, d: number) => table.vectors[rank * 4 + d]! * table.scales[rank]!;
      expect(at(1, 1)).toBeCloseTo(0.5, 2);
      expect(at(1, 2)).toBeCloseTo(-0.25, 2);
      fs.writeFileSync(target, Buffer.from('not a cache'));
      expect(() => readGloveCache(target)).toThrow(/not a Minutes GloVe cache/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A local OpenAI-compatible embeddings server: hashed bag of words, so similar texts get similar vectors. */
function startEmbeddingsServer(options: { dims: number; failFirst?: number }) {
  const requests: { auth?: string; body: { model: string; input: string[]; dimensions?: number } }[] = [];
  let failures = options.failFirst ?? 0;
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    requests.push({ auth: req.headers.authorization, body });
    if (req.url !== '/v1/embeddings') {
      res.writeHead(404).end();
      return;
    }
    if (failures > 0) {
      failures--;
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"busy"}');
      return;
    }
    const data = (body.input as string[]).map((text, index) => {
      const v = new Array(options.dims).fill(0);
      for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
        let hsh = 0;
        for (const ch of w) hsh = (hsh * 31 + ch.charCodeAt(0)) >>> 0;
        v[hsh % options.dims] += 1;
      }
      return { object: 'embedding', index, embedding: v };
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
  });
  return new Promise<{ url: string; requests: typeof requests; close: () => Promise<void> }>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        requests,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}

describe('openai embedder against a local OpenAI-compatible server', () => {
  let server: Awaited<ReturnType<typeof startEmbeddingsServer>>;
  beforeAll(async () => {
    server = await startEmbeddingsServer({ dims: 16, failFirst: 1 });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('probes the width, batches, sends the key and model, retries a 503, normalises vectors', async () => {
    const config = loadConfig({
      EMBEDDER: 'openai',
      EMBEDDER_BASE_URL: server.url,
      EMBEDDER_API_KEY: 'sk-local-test',
      EMBEDDER_MODEL: 'local-embed',
    });
    const embedder = await createEmbedder(config);
    expect(embedder.id).toBe('openai:local-embed');
    expect(embedder.dims).toBe(16);
    const texts = Array.from({ length: 70 }, (_, i) => `budget item ${i}`);
    const vectors = await embedder.embed(texts, 'passage');
    expect(vectors).toHaveLength(70);
    for (const v of vectors) expect(norm(v)).toBeCloseTo(1, 5);
    const embeddingCalls = server.requests.filter((r) => r.body.input.length > 1);
    expect(embeddingCalls.map((r) => r.body.input.length)).toEqual([64, 6]);
    expect(
      server.requests.every((r) => r.auth === 'Bearer sk-local-test' && r.body.model === 'local-embed'),
    ).toBe(true);
    const [a, b, c] = await embedder.embed(
      ['budget exceeded', 'the budget exceeded', 'picnic lake'],
      'query',
    );
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!));
  });

  it('fails with a clear error when the endpoint answers garbage or is unreachable', async () => {
    const broken = new OpenAiEmbedder({
      baseUrl: `${server.url}/nowhere`,
      model: 'x',
      timeoutMs: 2000,
      attempts: 1,
    });
    await expect(broken.embed(['a'])).rejects.toThrow(/embeddings endpoint .* failed .*HTTP 404/);
    const down = new OpenAiEmbedder({
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'x',
      timeoutMs: 2000,
      attempts: 2,
    });
    await expect(down.embed(['a'])).rejects.toBeInstanceOf(EmbedderError);
    const asked = new OpenAiEmbedder({ baseUrl: server.url, model: 'x', timeoutMs: 2000, dimensions: 8 });
    await expect(asked.embed(['a'])).rejects.toThrow(/returned 16 dimensions where 8 were expected/);
  });
});

describe('transformers embedder', () => {
  it('says clearly what to do when the model is not there (no download at run time)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-models-'));
    try {
      const error = await TransformersEmbedder.load(dir, 'Xenova/bge-small-en-v1.5').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EmbedderError);
      expect((error as Error).message).toContain('npx minutes models pull');
      expect((error as Error).message).toContain(path.join(dir, 'Xenova', 'bge-small-en-v1.5'));
      const config = loadConfig({ EMBEDDER: 'transformers', MODELS_DIR: dir });
      await expect(createEmbedder(config)).rejects.toThrow(/missing/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
