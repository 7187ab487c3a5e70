import { describe, expect, it } from 'vitest';
import type { Embedder, EmbedKind } from '../../src/features/search/embedders/embedder.ts';
import { queryVector } from '../../src/features/search/embedders/query-vector.ts';

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
    const { embedder, runs } = countingEmbedder();
    const [a, b] = await Promise.all([queryVector(embedder, 'budget'), queryVector(embedder, 'budget')]);
    const c = await queryVector(embedder, 'budget');
    expect(a).toBe(b);
    expect(c).toBe(a);
    expect(runs).toEqual([{ texts: ['budget'], kind: 'query' }]);
  });

  it('keeps embedders apart', async () => {
    const first = countingEmbedder();
    const second = countingEmbedder();
    await queryVector(first.embedder, 'roadmap');
    await queryVector(second.embedder, 'roadmap');
    expect(first.runs).toHaveLength(1);
    expect(second.runs).toHaveLength(1);
  });

  it('forgets the least recently used query beyond 256', async () => {
    const { embedder, runs } = countingEmbedder();
    await queryVector(embedder, 'q0');
    for (let i = 1; i <= 256; i++) {
      await queryVector(embedder, `q${i}`);
      if (i === 200) await queryVector(embedder, 'q0'); // used again: stays
    }
    expect(runs).toHaveLength(257);
    await queryVector(embedder, 'q0');
    expect(runs).toHaveLength(257);
    await queryVector(embedder, 'q1'); // the oldest unused one was dropped
    expect(runs).toHaveLength(258);
  });

  it('does not remember a failure', async () => {
    const { embedder, runs, failing } = countingEmbedder(new Set(['down']));
    await expect(queryVector(embedder, 'down')).rejects.toThrow('model down');
    failing.clear();
    expect(await queryVector(embedder, 'down')).toEqual(Float32Array.of(4, 1));
    expect(runs).toHaveLength(2);
  });
});
