import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJob, type JobCatalog } from '../../src/jobs/define-job.ts';
import { enqueueJob } from '../../src/jobs/queue.ts';
import { runDueJobs, startWorker } from '../../src/jobs/worker.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';

const SPACE = { accountId: 'acct_lanes', mode: 'live' as const };

/** Jobs that note how many of them run at once; a `waitFor` job holds its lane until that many have started. */
function concurrencyProbe() {
  const seen = { running: 0, most: 0, started: 0 };
  const waiting: { count: number; release(): void }[] = [];
  const catalog: JobCatalog = {
    'test.probe': defineJob({
      payload: z.object({ waitFor: z.number().int().min(1).default(1), followUp: z.boolean().optional() }),
      async run({ waitFor, followUp }, { deps }) {
        seen.running++;
        seen.started++;
        seen.most = Math.max(seen.most, seen.running);
        for (const w of waiting.filter((w) => seen.started >= w.count)) w.release();
        if (seen.started < waitFor)
          await new Promise<void>((release) => waiting.push({ count: waitFor, release }));
        // A follow-up enqueued while this job runs (as an import's step enqueues its notes).
        if (followUp)
          await enqueueJob(deps.db, {
            ...SPACE,
            type: 'test.probe',
            payload: { waitFor: 1 },
            maxAttempts: 1,
          });
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen.running--;
      },
    }),
  };
  return { seen, catalog };
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    // A poll interval longer than any test: only a job ending can wake a lane that found nothing due.
    const h = useHarness(dialect, { WORKER_POLL_MS: '600000', JOB_CONCURRENCY: '2' });
    const enqueue = (payload: object) =>
      enqueueJob(h.db.db, { ...SPACE, type: 'test.probe', payload, maxAttempts: 1 });

    it('runs one job at a time by default', async () => {
      const { seen, catalog } = concurrencyProbe();
      for (let i = 0; i < 4; i++) await enqueue({});
      expect(await runDueJobs(h.deps, { catalog })).toBe(4);
      expect(seen.most).toBe(1);
    });

    it('runs `lanes` jobs at once: each of two jobs waits until the other has started', async () => {
      const { seen, catalog } = concurrencyProbe();
      await enqueue({ waitFor: 2 });
      await enqueue({ waitFor: 2 });
      expect(await runDueJobs(h.deps, { catalog, lanes: 2 })).toBe(2);
      expect(seen.most).toBe(2);
    });

    it('a lane that found nothing due takes what a running job enqueues, and the pass then ends', async () => {
      const { seen, catalog } = concurrencyProbe();
      await enqueue({ followUp: true });
      // Without the wake-up at the job's end the idle lane would wait the ten-minute poll interval.
      expect(await runDueJobs(h.deps, { catalog, lanes: 2 })).toBe(2);
      expect(seen.started).toBe(2);
    });

    it('with more lanes than work, the pass ends: lanes that find nothing do not keep waking each other', async () => {
      for (const lanes of [3, 4]) {
        const { seen, catalog } = concurrencyProbe();
        // An empty queue: every lane finds nothing while the others are only claiming.
        expect(await runDueJobs(h.deps, { catalog, lanes })).toBe(0);
        await enqueue({ followUp: true });
        await enqueue({});
        expect(await runDueJobs(h.deps, { catalog, lanes })).toBe(3);
        expect(seen.started).toBe(3);
      }
    }, 20_000);

    it('the poll loop runs JOB_CONCURRENCY jobs at once', async () => {
      expect(h.deps.config.worker.concurrency).toBe(2);
      const { seen, catalog } = concurrencyProbe();
      await enqueue({ waitFor: 2 });
      await enqueue({ waitFor: 2 });
      const worker = startWorker(h.deps, { catalog });
      try {
        await expect.poll(() => seen.started === 2 && seen.running === 0, { timeout: 30_000 }).toBe(true);
      } finally {
        await worker.stop();
      }
      expect(seen.most).toBe(2);
    });
  });
}
