import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ScanMemories, type ScanSpace } from '../../src/features/search/vectors/scan-memory.ts';
import { ScanThread } from '../../src/features/search/vectors/scan-thread.ts';
import { AppError } from '../../src/lib/errors.ts';

const DIMS = 8;
const COUNT = 20_000;

const memories = new ScanMemories(1 << 30, 16);

function allocateScanSpace(rows: number, dims: number): ScanSpace {
  const space = memories.take(rows, dims);
  if (!space) throw new Error('no memory for the test');
  return space;
}

function sharedVectors() {
  const space = allocateScanSpace(COUNT, DIMS);
  const { vectors } = space;
  // Fixed pseudo-random values without repeating rows, so a failure replays the same way and nothing ties.
  for (let i = 0; i < vectors.length; i++) {
    const x = Math.sin(i * 12.9898 + 78.233) * 43_758.5453;
    vectors[i] = x - Math.floor(x) - 0.5;
  }
  return space;
}

describe('vector scan thread', () => {
  const thread = new ScanThread();
  afterAll(() => thread.close());
  const { memory, vectors } = sharedVectors();
  const query = Float32Array.from({ length: DIMS }, (_, i) => (i % 2 ? 1 : -1) / Math.sqrt(DIMS));

  it('returns the exact nearest rows, best first', async () => {
    const result = await thread.scan({ memory, count: COUNT, dims: DIMS, query, k: 5 });
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
      thread.scan({ memory, count: COUNT, dims: DIMS, query, k: 3 }).then(
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

  it('refuses memory that is not shared, and more rows than the memory holds', async () => {
    const unshared = new WebAssembly.Memory({ initial: 1 });
    await expect(thread.scan({ memory: unshared, count: 1, dims: DIMS, query, k: 1 })).rejects.toThrow(
      /shared WebAssembly memory/,
    );
    await expect(thread.scan({ memory, count: COUNT * 2, dims: DIMS, query, k: 1 })).rejects.toThrow(
      /do not fit/,
    );
  });

  it('gives the cosines of four running sums in float64, to the last bit, for rows of any width', async () => {
    // The JavaScript loop the SIMD kernel replaced: its sums are what the relevance lines were fitted on.
    const fourSums = (vectors: Float32Array, row: number, q: Float32Array, dims: number) => {
      const base = row * dims;
      const tail = dims - (dims % 4);
      const s = [0, 0, 0, 0];
      for (let d = 0; d < tail; d++) s[d % 4]! += q[d]! * vectors[base + d]!;
      let sum = s[0]! + s[1]! + s[2]! + s[3]!;
      for (let d = tail; d < dims; d++) sum += q[d]! * vectors[base + d]!;
      return sum;
    };
    for (const dims of [1, 3, 4, 7, 16, 21, 384]) {
      const count = 301;
      const space = allocateScanSpace(count, dims);
      // Magnitudes far apart, so a sum taken in another order or precision gives other bits.
      space.vectors.forEach((_, i) => {
        space.vectors[i] = Math.cos(i * 0.37 + dims) * 10 ** ((i % 5) * 2 - 4);
      });
      const q = Float32Array.from({ length: dims }, (_, d) => Math.sin(d + 1) * (d % 3 ? 1 : 1e4));
      const result = await thread.scan({ memory: space.memory, count, dims, query: q, k: count });
      const expected = Array.from({ length: count }, (_, row) => ({
        row,
        dot: fourSums(space.vectors, row, q, dims),
      })).sort((a, b) => b.dot - a.dot || a.row - b.row);
      expect(Array.from(result.indexes), `dims ${dims}`).toEqual(expected.map((e) => e.row));
      expect(Array.from(result.similarities), `dims ${dims}`).toEqual(expected.map((e) => e.dot));
    }
  });

  it('loads the bytes dots.wat assembles to', async () => {
    const { assembleDots, dotsModuleSource } = await import('../../scripts/build-dots-wasm.ts');
    const committed = fs.readFileSync(
      new URL('../../src/features/search/vectors/dots-wasm.ts', import.meta.url),
      'utf8',
    );
    expect(committed).toBe(dotsModuleSource(await assembleDots()));
  });
});
