import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJob, type JobCatalog } from '../../src/jobs/define-job.ts';
import { enqueueJob } from '../../src/jobs/queue.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { toIso } from '../../src/lib/time.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';

const TYPE = 'test.fair';

/** A catalog of one job type that records the label of each job it runs, in the order they run. */
function labelRecorder() {
  const ran: string[] = [];
  const catalog: JobCatalog = {
    [TYPE]: defineJob({
      payload: z.object({ label: z.string() }),
      run: async (payload) => {
        ran.push(payload.label);
      },
    }),
  };
  return { ran, catalog };
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect);

    it('takes accounts in turn: a backlog of one account waits behind a single job of each other account', async () => {
      const { ran, catalog } = labelRecorder();
      const enqueue = (accountId: string, label: string, runAt: string) =>
        enqueueJob(h.deps.db, {
          accountId,
          mode: 'live',
          type: TYPE,
          payload: { label },
          maxAttempts: 1,
          runAt,
        });
      const base = Date.now() - 3600_000;
      // The big account's 30 jobs were all due before the others'.
      for (let i = 0; i < 30; i++) await enqueue('acct_fair_big', `big-${i}`, toIso(base + i));
      await enqueue('acct_fair_late', 'late-0', toIso(base + 60_000));
      await enqueue('acct_fair_late', 'late-1', toIso(base + 60_001));
      await enqueue('acct_fair_aaa', 'aaa-0', toIso(base + 60_002));

      expect(await runDueJobs(h.deps, { catalog })).toBe(33);
      // Each account's own jobs keep their order.
      for (const prefix of ['big-', 'late-']) {
        const own = ran.filter((l) => l.startsWith(prefix));
        expect(own).toEqual([...own].sort((a, b) => Number(a.split('-')[1]) - Number(b.split('-')[1])));
      }
      // Every account got its first job within the first round, and the second of "late" within the second.
      const firstRound = ran
        .slice(0, 3)
        .map((l) => l.split('-')[0])
        .sort();
      expect(firstRound).toEqual(['aaa', 'big', 'late']);
      expect(ran.indexOf('late-1')).toBeLessThan(6);
    });

    it('takes a job whose worker died before any due job', async () => {
      const { ran, catalog } = labelRecorder();
      const now = Date.now();
      await enqueueJob(h.deps.db, {
        accountId: 'acct_fair_q',
        mode: 'live',
        type: TYPE,
        payload: { label: 'queued' },
        maxAttempts: 2,
        runAt: toIso(now - 10_000),
      });
      const abandoned = await enqueueJob(h.deps.db, {
        accountId: 'acct_fair_z',
        mode: 'live',
        type: TYPE,
        payload: { label: 'abandoned' },
        maxAttempts: 2,
        runAt: toIso(now - 5_000),
      });
      await h.deps.db
        .updateTable('jobs')
        .set({ status: 'running', attempts: 1, locked_by: 'dead', locked_until: toIso(now - 1000) })
        .where('id', '=', abandoned)
        .execute();
      await runDueJobs(h.deps, { catalog });
      expect(ran).toEqual(['abandoned', 'queued']);
    });
  });
}
