import { afterAll, describe, expect, it } from 'vitest';
import { ScanThread } from '../../src/features/search/vectors/scan-thread.ts';
import { AppError } from '../../src/lib/errors.ts';

const DIMS = 8;
const COUNT = 20_000;

function sharedVectors(): Float32Array {
  const vectors = new Float32Array(new SharedArrayBuffer(COUNT * DIMS * 4));
  // Fixed pseudo-random values without repeating rows, so a failure replays the same way and nothing ties.
  for (let i = 0; i < vectors.length; i++) {
    const x = Math.sin(i * 12.9898 + 78.233) * 43_758.5453;
    vectors[i] = x - Math.floor(x) - 0.5;
  }
  return vectors;
}

describe('vector scan thread', () => {
  const thread = new ScanThread();
  afterAll(() => thread.close());
  const vectors = sharedVectors();
  const query = Float32Array.from({ length: DIMS }, (_, i) => (i % 2 ? 1 : -1) / Math.sqrt(DIMS));

  it('returns the exact nearest rows, best first', async () => {
    const result = await thread.scan({ vectors, count: COUNT, dims: DIMS, query, k: 5 });
    const expected = Array.from({ length: COUNT }, (_, row) => {
      let dot = 0;
      for (let d = 0; d < DIMS; d++) dot += vectors[row * DIMS + d]! * query[d]!;
      return { row, dot };
    })
      .sort((a, b) => b.dot - a.dot || a.row - b.row)
      .slice(0, 5);
    expect(Array.from(result.indexes)).toEqual(expected.map((e) => e.row));
    result.similarities.forEach((s, i) => {
      expect(s).toBeCloseTo(expected[i]!.dot, 5);
    });
  });

  it('answers `unavailable` (503) at once when too many scans wait, and still serves the ones queued', async () => {
    const scans = Array.from({ length: 80 }, () =>
      thread.scan({ vectors, count: COUNT, dims: DIMS, query, k: 3 }).then(
        (r) => ({ ok: true as const, first: r.indexes[0] }),
        (err: unknown) => ({ ok: false as const, err }),
      ),
    );
    const outcomes = await Promise.all(scans);
    const refused = outcomes.filter((o) => !o.ok);
    const served = outcomes.filter((o) => o.ok);
    expect(refused.length).toBeGreaterThan(0);
    expect(served.length).toBeGreaterThanOrEqual(64);
    for (const o of refused) {
      expect(o.err).toBeInstanceOf(AppError);
      expect((o.err as AppError).code).toBe('unavailable');
    }
    expect(new Set(served.map((o) => o.first)).size).toBe(1);
  });

  it('refuses vectors that are not in shared memory', async () => {
    await expect(
      thread.scan({ vectors: new Float32Array(DIMS), count: 1, dims: DIMS, query, k: 1 }),
    ).rejects.toThrow(/SharedArrayBuffer/);
  });
});
