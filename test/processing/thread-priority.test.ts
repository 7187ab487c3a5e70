import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createProcessingPool } from '../../src/features/processing/pool/processing-pool.ts';
import { MiniLmEmbedder } from '../../src/features/search/embedders/minilm-embedder.ts';
import { BACKGROUND_NICE_INCREMENT } from '../../src/lib/thread-priority.ts';

/** The nice value of every thread of this process (Linux: field 19 of /proc/self/task/<tid>/stat). */
function threadNiceValues(): number[] {
  return fs.readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

const base = os.getPriority();
const background = Math.min(19, base + BACKGROUND_NICE_INCREMENT);

// On Linux each thread has its own nice value; elsewhere the background threads keep the process's priority.
describe.runIf(process.platform === 'linux')('background threads yield the CPU to the API thread', () => {
  it('a processing thread runs at a lower priority than the process, which keeps its own', async () => {
    const before = threadNiceValues().filter((n) => n === background).length;
    let settled = false;
    const pool = createProcessingPool({ threads: 1 });
    const spinning = pool.spin(1_500).finally(() => {
      settled = true;
    });
    // Looked at while the task runs, however long its thread takes to start on a busy machine.
    let seen = 0;
    while (!settled && seen <= before) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = Math.max(seen, threadNiceValues().filter((n) => n === background).length);
    }
    await spinning;
    await pool.close();
    expect(seen).toBeGreaterThan(before);
    expect(os.getPriority()).toBe(base);
  });

  it("the sentence model's thread (and onnxruntime's threads it creates) too", async () => {
    const before = threadNiceValues().filter((n) => n === background).length;
    const embedder = await MiniLmEmbedder.load(loadConfig({}).search.modelsDir, { threads: 2 });
    try {
      expect(threadNiceValues().filter((n) => n === background).length).toBeGreaterThan(before);
      expect((await embedder.embed(['the budget was exceeded'], 'query'))[0]).toHaveLength(384);
      expect(os.getPriority()).toBe(base);
    } finally {
      await embedder.close();
    }
  }, 120_000);

  it('starts another model thread, at the same priority, only when work waits while the first is busy', async () => {
    const before = threadNiceValues().filter((n) => n === background).length;
    const lone = await MiniLmEmbedder.load(loadConfig({}).search.modelsDir, { threads: 1 });
    const pooled = await MiniLmEmbedder.load(loadConfig({}).search.modelsDir, { threads: 2 });
    try {
      // Loaded: one thread each.
      expect(threadNiceValues().filter((n) => n === background).length).toBe(before + 2);
      const texts = Array.from(
        { length: 40 },
        (_, i) => `passage ${i}: the launch budget was exceeded by ${i} percent`,
      );
      const [alone, together] = await Promise.all([
        lone.embed(texts, 'passage'),
        pooled.embed(texts, 'passage'),
      ]);
      // Five batches of eight waited for the pooled embedder's thread: it started a second one.
      expect(threadNiceValues().filter((n) => n === background).length).toBe(before + 3);
      // Each text is run alone wherever it runs: the same vector from either thread.
      expect(together).toEqual(alone);
      expect(os.getPriority()).toBe(base);
    } finally {
      await Promise.all([lone.close(), pooled.close()]);
    }
    expect(threadNiceValues().filter((n) => n === background).length).toBe(before);
  }, 120_000);

  it('is relative to the process: a thread lowered twice (or started by a lowered thread) is not lowered further', async () => {
    // What the server's background thread does, then the processing threads it starts do again.
    const pool = new Piscina({
      filename: new URL('./lowered-twice.ts', import.meta.url).href,
      maxThreads: 1,
      execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href],
    });
    try {
      expect(await pool.run(null)).toBe(background);
      expect(os.getPriority()).toBe(base);
    } finally {
      await pool.destroy();
    }
  }, 60_000);
});
