import { describe, expect, it } from 'vitest';
import { ScanMemories, scanSpaceBytes } from '../../src/features/search/vectors/scan-memory.ts';

const PAGE = 65_536;

describe('the exact store’s memories', () => {
  it('gives a released memory to the next space that fits instead of making another', () => {
    const memories = new ScanMemories(64 * PAGE, 4);
    const a = memories.take(100, 384);
    expect(a?.bytes).toBe(scanSpaceBytes(100, 384));
    memories.release(a!);
    const b = memories.take(50, 384);
    expect(b?.memory).toBe(a?.memory);
    expect(b?.vectors.length).toBe(50 * 384);
    expect(memories.bytes).toBe(a!.bytes);
  });

  it('does not give a memory again while a scan of it runs', async () => {
    const memories = new ScanMemories(64 * PAGE, 4);
    const a = memories.take(100, 384)!;
    let end = () => {};
    const scan = memories.scanning(a, () => new Promise<void>((resolve) => (end = resolve)));
    memories.release(a);
    const b = memories.take(100, 384)!;
    expect(b.memory).not.toBe(a.memory);
    end();
    await scan;
    // Its scan over, the released memory is given again (b is still held).
    expect(memories.take(100, 384)?.memory).toBe(a.memory);
    expect(b.memory).not.toBe(a.memory);
  });

  it('keeps at most `max` memories and their bytes within the budget, refusing rather than growing', () => {
    const memories = new ScanMemories(8 * PAGE, 2);
    const a = memories.take(10, 384)!;
    const b = memories.take(10, 384)!;
    expect(memories.take(10, 384)).toBeUndefined();
    expect(memories.take(10_000, 384)).toBeUndefined(); // larger than the budget
    memories.release(a);
    // A free memory too small for the next space makes way for a new one.
    const big = memories.take(200, 384)!;
    expect(big.bytes).toBe(scanSpaceBytes(200, 384));
    expect(big.bytes).toBeGreaterThan(a.bytes);
    expect(memories.bytes).toBe(b.bytes + big.bytes);
    expect(memories.bytes).toBeLessThanOrEqual(8 * PAGE);
  });
});
