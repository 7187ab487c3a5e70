import { sql } from 'kysely';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Db } from '../../src/db/schema.ts';
import { JOB_CATALOG } from '../../src/jobs/catalog.ts';
import { defineJob, type JobCatalog } from '../../src/jobs/define-job.ts';
import { jobsRepo } from '../../src/jobs/jobs.repo.ts';
import { enqueueJob } from '../../src/jobs/queue.ts';
import { runDueJobs, startWorker } from '../../src/jobs/worker.ts';
import { toIso } from '../../src/lib/time.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';

const RETRY_BASE_SECONDS = 60;
const MAX_ATTEMPTS = 3;
const SPACE = { accountId: 'acct_worker_tests', mode: 'live' as const };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every handler run and final-failure hook call is a row, so the tests count what really happened. */
async function createRunLog(db: Db) {
  await sql`CREATE TABLE job_runs (job_id TEXT NOT NULL, worker_id TEXT NOT NULL, attempt INTEGER NOT NULL, kind TEXT NOT NULL, error TEXT)`.execute(
    db,
  );
}

async function logRun(
  db: Db,
  row: { job_id: string; worker_id: string; attempt: number; kind: string; error?: string },
) {
  await sql`INSERT INTO job_runs (job_id, worker_id, attempt, kind, error)
    VALUES (${row.job_id}, ${row.worker_id}, ${row.attempt}, ${row.kind}, ${row.error ?? null})`.execute(db);
}

async function runsOf(db: Db, jobId?: string) {
  const result = await sql<{
    job_id: string;
    worker_id: string;
    attempt: number;
    kind: string;
    error: string | null;
  }>`
    SELECT job_id, worker_id, attempt, kind, error FROM job_runs ORDER BY attempt`.execute(db);
  return result.rows
    .map((r) => ({ ...r, attempt: Number(r.attempt) }))
    .filter((r) => jobId === undefined || r.job_id === jobId);
}

async function jobRow(db: Db, id: string) {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

function enqueue(db: Db, type: string, payload: unknown, runAt?: string) {
  return enqueueJob(db, { ...SPACE, type, payload, maxAttempts: MAX_ATTEMPTS, runAt });
}

/** Makes a job scheduled for later due now, as if its backoff had elapsed. */
async function makeDue(db: Db, id: string) {
  await db
    .updateTable('jobs')
    .set({ run_at: toIso(Date.now() - 1000) })
    .where('id', '=', id)
    .execute();
}

const catalog = (db: () => Db): JobCatalog => ({
  ...JOB_CATALOG,
  // Fails its first `fail_times` attempts, then succeeds.
  flaky: defineJob({
    payload: z.object({ fail_times: z.number().int().min(0) }),
    async run({ fail_times }, { job }) {
      await logRun(db(), { job_id: job.id, worker_id: '', attempt: job.attempt, kind: 'run' });
      if (job.attempt <= fail_times) throw new Error(`attempt ${job.attempt} failed`);
    },
    async onFinalFailure(_, ctx) {
      await logRun(ctx.db, {
        job_id: ctx.job.id,
        worker_id: '',
        attempt: ctx.job.attempt,
        kind: 'final',
        error: ctx.error,
      });
    },
  }),
  // Always fails, and so does its final-failure hook.
  broken_hook: defineJob({
    payload: z.object({}),
    async run() {
      throw new Error('handler failed');
    },
    async onFinalFailure() {
      throw new Error('hook failed');
    },
  }),
  // Takes a while, so that concurrent workers and stop() have something in flight.
  slow: defineJob({
    payload: z.object({ ms: z.number().int() }),
    async run({ ms }, { job }) {
      await sleep(ms);
      const locked = await jobRow(db(), job.id);
      await logRun(db(), {
        job_id: job.id,
        worker_id: locked.locked_by ?? '',
        attempt: job.attempt,
        kind: 'run',
      });
    },
  }),
});

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect, {
      JOB_RETRY_BASE_SECONDS: String(RETRY_BASE_SECONDS),
      JOB_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
      JOB_LEASE_SECONDS: '30',
      // Long enough that only wake() (or the first poll) can explain a job running within a test.
      WORKER_POLL_MS: '60000',
    });
    const db = () => h.db.db;
    const jobs = catalog(db);

    beforeAll(() => createRunLog(db()));
    beforeEach(async () => {
      await db().deleteFrom('jobs').execute();
      await sql`DELETE FROM job_runs`.execute(db());
    });

    describe('runDueJobs', () => {
      it('runs a due job once, marks it done and releases the lease', async () => {
        const id = await enqueue(db(), 'flaky', { fail_times: 0 });
        expect(await runDueJobs(h.deps, { catalog: jobs, workerId: 'w1' })).toBe(1);
        expect(await runDueJobs(h.deps, { catalog: jobs, workerId: 'w1' })).toBe(0);
        expect(await runsOf(db(), id)).toHaveLength(1);
        expect(await jobRow(db(), id)).toMatchObject({
          status: 'done',
          attempts: 1,
          locked_by: null,
          locked_until: null,
          last_error: null,
        });
      });

      it('does not run a job before its run_at', async () => {
        const id = await enqueue(db(), 'flaky', { fail_times: 0 }, toIso(Date.now() + 60_000));
        expect(await runDueJobs(h.deps, { catalog: jobs })).toBe(0);
        expect((await jobRow(db(), id)).status).toBe('queued');
      });

      it('runs due jobs oldest run_at first', async () => {
        const later = await enqueue(db(), 'flaky', { fail_times: 0 }, toIso(Date.now() - 1000));
        const earlier = await enqueue(db(), 'flaky', { fail_times: 0 }, toIso(Date.now() - 5000));
        expect(await runDueJobs(h.deps, { catalog: jobs })).toBe(2);
        const order = (await sql<{ job_id: string }>`SELECT job_id FROM job_runs`.execute(db())).rows;
        expect(order.map((r) => r.job_id)).toEqual([earlier, later]);
      });
    });

    describe('retries', () => {
      it('requeues a failed attempt with exponential backoff and jitter, keeping the error', async () => {
        const id = await enqueue(db(), 'flaky', { fail_times: 2 });
        for (const attempt of [1, 2]) {
          const before = Date.now();
          expect(await runDueJobs(h.deps, { catalog: jobs })).toBe(1);
          const after = Date.now();
          const job = await jobRow(db(), id);
          expect(job).toMatchObject({
            status: 'queued',
            attempts: attempt,
            last_error: `Error: attempt ${attempt} failed`,
            locked_by: null,
          });
          const delay = RETRY_BASE_SECONDS * 1000 * 2 ** (attempt - 1);
          const runAt = Date.parse(job.run_at);
          expect(runAt).toBeGreaterThanOrEqual(before + delay * 0.8 - 1);
          expect(runAt).toBeLessThanOrEqual(after + delay * 1.2 + 1);
          // Not due yet: a second pass leaves it alone.
          expect(await runDueJobs(h.deps, { catalog: jobs })).toBe(0);
          await makeDue(db(), id);
        }
        expect(await runDueJobs(h.deps, { catalog: jobs })).toBe(1);
        expect(await jobRow(db(), id)).toMatchObject({ status: 'done', attempts: 3 });
        expect((await runsOf(db(), id)).map((r) => r.attempt)).toEqual([1, 2, 3]);
      });

      it('fails the job after max_attempts and runs onFinalFailure once, with the last error', async () => {
        const id = await enqueue(db(), 'flaky', { fail_times: 99 });
        for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
          expect(await runDueJobs(h.deps, { catalog: jobs })).toBe(1);
          await makeDue(db(), id);
        }
        expect(await runDueJobs(h.deps, { catalog: jobs })).toBe(0);
        expect(await jobRow(db(), id)).toMatchObject({
          status: 'failed',
          attempts: MAX_ATTEMPTS,
          last_error: 'Error: attempt 3 failed',
          locked_by: null,
          locked_until: null,
        });
        expect((await runsOf(db(), id)).map((r) => [r.kind, r.attempt, r.error])).toEqual([
          ['run', 1, null],
          ['run', 2, null],
          ['run', 3, null],
          ['final', 3, 'Error: attempt 3 failed'],
        ]);
      });

      it('still fails the job when onFinalFailure throws, noting both errors', async () => {
        const id = await enqueueJob(db(), { ...SPACE, type: 'broken_hook', payload: {}, maxAttempts: 1 });
        expect(await runDueJobs(h.deps, { catalog: jobs })).toBe(1);
        const job = await jobRow(db(), id);
        expect(job.status).toBe('failed');
        expect(job.last_error).toContain('handler failed');
        expect(job.last_error).toContain('hook failed');
      });
    });

    describe('jobs that cannot run', () => {
      it('fails an unknown job type at once, naming it', async () => {
        const id = await enqueue(db(), 'no_such_job', {});
        expect(await runDueJobs(h.deps, { catalog: jobs })).toBe(1);
        const job = await jobRow(db(), id);
        expect(job).toMatchObject({ status: 'failed', attempts: 1 });
        expect(job.last_error).toMatch(/Unknown job type 'no_such_job'/);
      });

      it('does not mistake Object.prototype members for job types', async () => {
        const id = await enqueue(db(), 'toString', {});
        expect(await runDueJobs(h.deps, { catalog: jobs })).toBe(1);
        expect((await jobRow(db(), id)).last_error).toMatch(/Unknown job type 'toString'/);
      });

      it('fails a job whose payload does not match its schema, naming the field', async () => {
        const id = await enqueue(db(), 'flaky', { fail_times: 'twice' });
        expect(await runDueJobs(h.deps, { catalog: jobs })).toBe(1);
        const job = await jobRow(db(), id);
        expect(job).toMatchObject({ status: 'failed', attempts: 1 });
        expect(job.last_error).toMatch(/Invalid payload for job type 'flaky'/);
        expect(job.last_error).toMatch(/fail_times/);
        expect(await runsOf(db(), id)).toEqual([]);
      });
    });

    describe('leases', () => {
      async function abandon(id: string, attempts: number, lockedUntil: number) {
        await db()
          .updateTable('jobs')
          .set({ status: 'running', attempts, locked_by: 'dead-worker', locked_until: toIso(lockedUntil) })
          .where('id', '=', id)
          .execute();
      }

      it('picks up a running job whose lease expired (its worker died) and runs it again', async () => {
        const id = await enqueue(db(), 'flaky', { fail_times: 0 });
        await abandon(id, 1, Date.now() - 1000);
        expect(await runDueJobs(h.deps, { catalog: jobs, workerId: 'rescuer' })).toBe(1);
        expect(await jobRow(db(), id)).toMatchObject({ status: 'done', attempts: 2, locked_by: null });
        expect((await runsOf(db(), id)).map((r) => r.attempt)).toEqual([2]);
      });

      it('leaves a running job alone while its lease holds', async () => {
        const id = await enqueue(db(), 'flaky', { fail_times: 0 });
        await abandon(id, 1, Date.now() + 60_000);
        expect(await runDueJobs(h.deps, { catalog: jobs })).toBe(0);
        expect(await jobRow(db(), id)).toMatchObject({ status: 'running', locked_by: 'dead-worker' });
      });

      it('gives up, without running it again, on a job whose last attempt lost its worker', async () => {
        const id = await enqueue(db(), 'flaky', { fail_times: 0 });
        await abandon(id, MAX_ATTEMPTS, Date.now() - 1000);
        expect(await runDueJobs(h.deps, { catalog: jobs })).toBe(1);
        const job = await jobRow(db(), id);
        expect(job.status).toBe('failed');
        expect(job.last_error).toMatch(/lease expired/);
        expect((await runsOf(db(), id)).map((r) => r.kind)).toEqual(['final']);
      });

      it('does not let a worker record the outcome of an attempt another worker took over', async () => {
        const id = await enqueue(db(), 'flaky', { fail_times: 0 });
        const now = Date.now();
        const first = await jobsRepo.claimNext(db(), h.dialect, {
          workerId: 'slowpoke',
          now: toIso(now),
          lockedUntil: toIso(now + 10),
        });
        expect(first?.id).toBe(id);
        const second = await jobsRepo.claimNext(db(), h.dialect, {
          workerId: 'rescuer',
          now: toIso(now + 1000),
          lockedUntil: toIso(now + 60_000),
        });
        expect(second).toMatchObject({ id, attempts: 2, locked_by: 'rescuer' });
        expect(
          await jobsRepo.complete(db(), { id, workerId: 'slowpoke', attempt: 1 }, toIso(now + 2000)),
        ).toBe(false);
        expect(await jobRow(db(), id)).toMatchObject({ status: 'running', locked_by: 'rescuer' });
      });
    });

    describe('startWorker', () => {
      it('runs a job as soon as it is woken, and stop() waits for the job in hand', async () => {
        const worker = startWorker(h.deps, { catalog: jobs, workerId: 'in-process' });
        try {
          await sleep(50); // the first poll finds nothing
          const id = await enqueue(db(), 'slow', { ms: 300 });
          worker.wake();
          const deadline = Date.now() + 5000;
          while ((await jobRow(db(), id)).status !== 'running' && Date.now() < deadline) await sleep(10);
          expect((await jobRow(db(), id)).status).toBe('running');
          await worker.stop();
          expect(await jobRow(db(), id)).toMatchObject({ status: 'done', attempts: 1 });
          expect(await runsOf(db(), id)).toHaveLength(1);
        } finally {
          await worker.stop();
        }
      });

      it('claims nothing after stop()', async () => {
        const worker = startWorker(h.deps, { catalog: jobs });
        await worker.stop();
        const id = await enqueue(db(), 'flaky', { fail_times: 0 });
        worker.wake();
        await sleep(100);
        expect((await jobRow(db(), id)).status).toBe('queued');
      });
    });

    it.runIf(dialect === 'postgres')(
      'two workers running concurrently over 20 jobs run each job exactly once',
      async () => {
        const ids = await Promise.all(Array.from({ length: 20 }, () => enqueue(db(), 'slow', { ms: 15 })));
        const [a, b] = await Promise.all([
          runDueJobs(h.deps, { catalog: jobs, workerId: 'worker-a' }),
          runDueJobs(h.deps, { catalog: jobs, workerId: 'worker-b' }),
        ]);
        expect(a + b).toBe(20);
        expect(a).toBeGreaterThan(0);
        expect(b).toBeGreaterThan(0);
        const runs = await runsOf(db());
        expect(runs).toHaveLength(20);
        expect(new Set(runs.map((r) => r.job_id))).toEqual(new Set(ids));
        const byWorker = (w: string) => runs.filter((r) => r.worker_id === w).length;
        expect([byWorker('worker-a'), byWorker('worker-b')]).toEqual([a, b]);
        const done = await db().selectFrom('jobs').select('status').where('status', '=', 'done').execute();
        expect(done).toHaveLength(20);
      },
    );
  });
}
