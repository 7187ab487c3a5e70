import { describe, expect, it } from 'vitest';
import type { Embedder, EmbedKind } from '../../src/features/search/embedders/embedder.ts';
import { QueryVectors } from '../../src/features/search/embedders/query-vector.ts';

/** Counts model runs; fails the texts it is told to. */
function countingEmbedder(failing = new Set<string>()) {
  const runs: { texts: readonly string[]; kind: EmbedKind }[] = [];
  const embedder: Embedder = {
    id: 'test:counting',
    dims: 2,
    async embed(texts, kind) {
      runs.push({ texts, kind });
      if (texts.some((t) => failing.has(t))) throw new Error('model down');
      return texts.map((t) => Float32Array.of(t.length, 1));
    },
  };
  return { embedder, runs, failing };
}

describe('query vectors', () => {
  it('embeds a query once for its recent uses, as a query', async () => {
    const vectors = new QueryVectors();
    const { embedder, runs } = countingEmbedder();
    const [a, b] = await Promise.all([vectors.of(embedder, 'budget'), vectors.of(embedder, 'budget')]);
    const c = await vectors.of(embedder, 'budget');
    expect(a).toBe(b);
    expect(c).toBe(a);
    expect(runs).toEqual([{ texts: ['budget'], kind: 'query' }]);
  });

  it('keeps embedders apart', async () => {
    const vectors = new QueryVectors();
    const first = countingEmbedder();
    const second = countingEmbedder();
    await vectors.of(first.embedder, 'roadmap');
    await vectors.of(second.embedder, 'roadmap');
    expect(first.runs).toHaveLength(1);
    expect(second.runs).toHaveLength(1);
  });

  it('forgets the least recently used query beyond 256', async () => {
    const vectors = new QueryVectors();
    const { embedder, runs } = countingEmbedder();
    await vectors.of(embedder, 'q0');
    for (let i = 1; i <= 256; i++) {
      await vectors.of(embedder, `q${i}`);
      if (i === 200) await vectors.of(embedder, 'q0'); // used again: stays
    }
    expect(runs).toHaveLength(257);
    await vectors.of(embedder, 'q0');
    expect(runs).toHaveLength(257);
    await vectors.of(embedder, 'q1'); // the oldest unused one was dropped
    expect(runs).toHaveLength(258);
  });

  it('does not remember a failure', async () => {
    const vectors = new QueryVectors();
    const { embedder, runs, failing } = countingEmbedder(new Set(['down']));
    await expect(vectors.of(embedder, 'down')).rejects.toThrow('model down');
    failing.clear();
    expect(await vectors.of(embedder, 'down')).toEqual(Float32Array.of(4, 1));
    expect(runs).toHaveLength(2);
  });

  it('forgets every query when told to', async () => {
    const vectors = new QueryVectors();
    const { embedder, runs } = countingEmbedder();
    await vectors.of(embedder, 'budget');
    vectors.forget();
    await vectors.of(embedder, 'budget');
    expect(runs).toHaveLength(2);
  });
});
