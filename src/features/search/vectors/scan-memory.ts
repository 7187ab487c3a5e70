const PAGE = 65_536;
/** A 32-bit WebAssembly memory holds at most 65,536 pages (4 GiB). */
const MAX_PAGES = 65_536;
/**
 * Memories a cache keeps: V8 reserves 8–10 GiB of address space for each (guard regions), a process can hold about a
 * hundred, and a memory let go of is freed only once every thread holding it has collected its garbage. So memories
 * are few and reused rather than made per space and version.
 */
export const MAX_MEMORIES = 8;

/**
 * Where a scan of `count` rows of `dims` puts the query (after the rows) and the scores (float64, one a row, after
 * the query), and the bytes it needs.
 */
export function scanLayout(
  count: number,
  dims: number,
): { queryAt: number; scoresAt: number; bytes: number } {
  const queryAt = count * dims * 4;
  const scoresAt = Math.ceil((queryAt + dims * 4) / 8) * 8;
  return { queryAt, scoresAt, bytes: scoresAt + count * 8 };
}

/** Bytes of memory (whole pages) that `rows` vectors of `dims` and a scan of them take. */
export function scanSpaceBytes(rows: number, dims: number): number {
  return Math.max(1, Math.ceil(scanLayout(rows, dims).bytes / PAGE)) * PAGE;
}

/** A space's vectors where the scanning thread computes: shared WebAssembly memory (not copied per scan). */
export interface ScanSpace {
  readonly memory: WebAssembly.Memory;
  /** Bytes of the memory. */
  readonly bytes: number;
  /** `rows` rows of `dims` at the start of the memory; fill them before the first scan. */
  readonly vectors: Float32Array;
}

interface Entry {
  memory: WebAssembly.Memory;
  bytes: number;
  /** Given to a space (until released). */
  held: boolean;
  /** Scans in flight: a released memory is given again only once they ended. */
  scans: number;
}

/**
 * The exact store's WebAssembly memories (one set per ExactVectorCache): at most MAX_MEMORIES, together within the
 * cache's byte budget. A space re-read at a new version or evicted gives its memory back, and the next space that
 * fits takes it.
 */
export class ScanMemories {
  private readonly entries: Entry[] = [];

  constructor(
    private readonly budgetBytes: number,
    private readonly max = MAX_MEMORIES,
  ) {}

  /** Bytes of every memory kept, given or free. */
  get bytes(): number {
    return this.entries.reduce((sum, e) => sum + e.bytes, 0);
  }

  /**
   * Memory for `rows` vectors of `dims`, held until `release`: a free one large enough, else a new one once free
   * ones make room within the limits. Undefined when none can be had (every memory held, or the address space
   * refused): the caller searches without the cache.
   */
  take(rows: number, dims: number): ScanSpace | undefined {
    const bytes = scanSpaceBytes(rows, dims);
    if (bytes > this.budgetBytes || bytes > MAX_PAGES * PAGE) return undefined;
    const free = this.entries.filter((e) => !e.held && e.scans === 0);
    const fit = free.filter((e) => e.bytes >= bytes).sort((a, b) => a.bytes - b.bytes)[0];
    if (fit) return this.give(fit, rows, dims);
    // Free memories too small go, largest first, until a new one fits the limits.
    for (const e of free.sort((a, b) => b.bytes - a.bytes)) {
      if (this.entries.length < this.max && this.bytes + bytes <= this.budgetBytes) break;
      this.entries.splice(this.entries.indexOf(e), 1);
    }
    if (this.entries.length >= this.max || this.bytes + bytes > this.budgetBytes) return undefined;
    let memory: WebAssembly.Memory;
    try {
      memory = new WebAssembly.Memory({ initial: bytes / PAGE, maximum: bytes / PAGE, shared: true });
    } catch {
      return undefined;
    }
    const entry: Entry = { memory, bytes, held: false, scans: 0 };
    this.entries.push(entry);
    return this.give(entry, rows, dims);
  }

  /** Gives a space's memory back; it is given again once its scans in flight ended. */
  release(space: ScanSpace): void {
    const entry = this.entries.find((e) => e.memory === space.memory);
    if (entry) entry.held = false;
  }

  /** Runs a scan of `space`: its memory is not given to another space before the scan ends. */
  async scanning<T>(space: ScanSpace, scan: () => Promise<T>): Promise<T> {
    const entry = this.entries.find((e) => e.memory === space.memory);
    if (entry) entry.scans++;
    try {
      return await scan();
    } finally {
      if (entry) entry.scans--;
    }
  }

  private give(entry: Entry, rows: number, dims: number): ScanSpace {
    entry.held = true;
    return {
      memory: entry.memory,
      bytes: entry.bytes,
      vectors: new Float32Array(entry.memory.buffer, 0, rows * dims),
    };
  }
}
