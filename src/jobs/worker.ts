import type { Logger } from 'pino';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { type BackoffPolicy, backoffDelayMs } from '../lib/backoff.ts';
import { startLeaseRenewal } from '../lib/lease-renewal.ts';
import { POLL_JITTER, startPollLoop } from '../lib/poll-loop.ts';
import { nowIso, toIso } from '../lib/time.ts';
import { createWorkerId } from '../lib/worker-id.ts';
import { JOB_CATALOG } from './catalog.ts';
import type { JobCatalog, JobContext, JobDefinition, JobRun } from './define-job.ts';
import { type JobLease, type JobRow, jobsRepo } from './jobs.repo.ts';

export interface JobWorker {
  /** Polls now instead of at the next tick (call after enqueueing). */
  wake(): void;
  /** Stops polling and resolves once the job in hand, if any, has been recorded. */
  stop(): Promise<void>;
}

export interface RunDueJobsOptions {
  /** Recorded in `jobs.locked_by`; unique per process by default. */
  workerId?: string;
  /** Job types this worker runs; the application's catalog by default. */
  catalog?: JobCatalog;
  /** Stops claiming further jobs once aborted (the job in hand is finished). */
  signal?: AbortSignal;
  /** The account served last, kept across passes so accounts are taken in turn (jobsRepo.claimNext). */
  turn?: { after?: string };
  /** Jobs run at once (config.worker.concurrency in the poll loop; one by default). */
  lanes?: number;
}

/** Job retries: base × 2^(n−1), ±20% so jobs that failed together do not retry together, at most six hours. */
export const jobBackoff = (baseSeconds: number): BackoffPolicy => ({
  kind: 'exponential',
  baseMs: baseSeconds * 1000,
  capMs: 6 * 3600_000,
  jitter: { below: 0.2, above: 0.2 },
});

/** Delay before retry number `attempt` (1-based) of a job (see jobBackoff). */
export function computeRetryDelayMs(
  attempt: number,
  baseSeconds: number,
  random: () => number = Math.random,
): number {
  // An exponential policy always has a next delay.
  return backoffDelayMs(attempt, jobBackoff(baseSeconds), random) as number;
}

/**
 * Claims and runs due jobs until none is due (or `signal` aborts), `lanes` at a time; returns how many it ran.
 * Claims are made one at a time (each sees the account turn the previous one left), and a lane that finds
 * nothing due while another lane runs a job looks again when that job ends, or after a poll interval (a running
 * job may enqueue more, as an import's steps do); the pass ends when no lane has anything and no job runs. A
 * lane that fails stops the others from claiming, and the pass rejects once they have finished. Safe to call
 * from several processes at once: each job is claimed by exactly one of them.
 */
export async function runDueJobs(deps: Deps, options: RunDueJobsOptions = {}): Promise<number> {
  const workerId = options.workerId ?? createWorkerId();
  const catalog = options.catalog ?? JOB_CATALOG;
  const turn = options.turn ?? {};
  const failed = new AbortController();
  const stopped = () => options.signal?.aborted === true || failed.signal.aborted;
  let claims: Promise<unknown> = Promise.resolve();
  const claim = () => {
    const claimed = claims.then(async () => {
      // A claim queued before the pass stopped must not start a job after it.
      if (stopped()) return undefined;
      const now = Date.now();
      const job = await jobsRepo.claimNext(deps.db, deps.dialect, {
        workerId,
        now: toIso(now),
        lockedUntil: toIso(now + deps.config.worker.leaseSeconds * 1000),
        after: turn.after,
      });
      if (job) turn.after = job.account_id;
      return job;
    });
    claims = claimed.catch(() => undefined);
    return claimed;
  };
  // Lanes running a job, and the lanes waiting for one of those jobs to end. Only a running job can enqueue more,
  // so a lane that found nothing waits for a job's end, never for another lane's empty claim (with three lanes or
  // more, empty claims waking each other would go on for ever).
  let running = 0;
  const waiting = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of waiting) wake();
  };
  const lane = async (): Promise<number> => {
    let ran = 0;
    while (!stopped()) {
      const job = await claim();
      if (job) {
        running++;
        try {
          await runClaimedJob(deps, catalog, job, workerId);
          ran++;
        } finally {
          running--;
          wakeAll();
        }
        continue;
      }
      // Nothing due: the claims queued behind this one may still find a job (which then runs), so settle them.
      if (running === 0) await claims;
      // Nothing due and no job running that could enqueue more: the pass is over for this lane.
      if (running === 0) break;
      await jobEndOrPoll(waiting, deps.config.worker.pollMs, options.signal);
    }
    return ran;
  };
  const outcomes = await Promise.allSettled(
    Array.from({ length: Math.max(1, options.lanes ?? 1) }, () =>
      lane().catch((error: unknown) => {
        failed.abort();
        wakeAll();
        throw error;
      }),
    ),
  );
  const failure = outcomes.find((o) => o.status === 'rejected');
  if (failure) throw failure.reason;
  return outcomes.reduce((sum, o) => sum + (o.status === 'fulfilled' ? o.value : 0), 0);
}

/**
 * Resolves when a job ends (`waiting`'s functions are called), `ms` have passed or `signal` aborts, whichever is
 * first; leaves nothing behind.
 */
function jobEndOrPoll(waiting: Set<() => void>, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const end = () => {
      clearTimeout(timer);
      waiting.delete(end);
      signal?.removeEventListener('abort', end);
      resolve();
    };
    const timer = setTimeout(end, ms);
    waiting.add(end);
    signal?.addEventListener('abort', end, { once: true });
  });
}

/**
 * Polls for due jobs every `config.worker.pollMs` (+0–10%) in this process, on the shared poll loop
 * (lib/poll-loop.ts: idle → running → idle, stopping → stopped); the next poll is an interval after a pass
 * ends. A failed poll (database briefly unreachable) is logged and retried at the next tick.
 */
export function startWorker(deps: Deps, options: Omit<RunDueJobsOptions, 'signal'> = {}): JobWorker {
  const workerId = options.workerId ?? createWorkerId();
  const turn = options.turn ?? {};
  const loop = startPollLoop({
    name: 'job worker',
    intervalMs: deps.config.worker.pollMs,
    ticks: 'after-pass',
    jitter: POLL_JITTER,
    holdProcess: true,
    pass: (signal) =>
      runDueJobs(deps, { lanes: deps.config.worker.concurrency, ...options, workerId, signal, turn }),
    onError: (error) => deps.logger.error({ err: error, worker_id: workerId }, 'polling for jobs failed'),
  });
  deps.logger.info({ worker_id: workerId, poll_ms: deps.config.worker.pollMs }, 'job worker started');
  return {
    // A job enqueued while a pass runs does not wait a whole tick: another pass follows.
    wake: loop.wake,
    async stop() {
      await loop.stop();
      deps.logger.info({ worker_id: workerId }, 'job worker stopped');
    },
  };
}

/** `Name: message`, the form stored in `jobs.last_error`. */
function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

type Outcome = { outcome: 'done' } | { outcome: 'error'; error: unknown };

async function runClaimedJob(deps: Deps, catalog: JobCatalog, row: JobRow, workerId: string) {
  const lease: JobLease = { id: row.id, workerId, attempt: row.attempts };
  const job: JobRun = {
    id: row.id,
    type: row.type,
    accountId: row.account_id,
    mode: row.mode,
    attempt: row.attempts,
    maxAttempts: row.max_attempts,
  };
  const logger = deps.logger.child({ job_id: job.id, job_type: job.type, attempt: job.attempt });

  // Own-property lookup: a job type named "toString" must not find Object.prototype.toString.
  const definition = Object.hasOwn(catalog, row.type) ? catalog[row.type] : undefined;
  if (!definition) {
    await failJob(deps, logger, lease, `Unknown job type '${row.type}': no handler is registered for it.`);
    return;
  }
  const payload = parsePayload(definition, row.payload);
  if (!payload.success) {
    await failJob(deps, logger, lease, `Invalid payload for job type '${row.type}': ${payload.error}`);
    return;
  }
  const ctx: JobContext = { deps, job, logger };
  if (job.attempt > job.maxAttempts) {
    // The worker holding the last attempt died: running it again could crash the next worker too.
    const error = `Gave up after ${job.maxAttempts} attempts: the last attempt's worker stopped without finishing (lease expired).`;
    await failJobForGood(deps, definition, payload.data, ctx, lease, error, undefined);
    return;
  }

  const started = Date.now();
  const result = await runWithLease(deps, definition, payload.data, ctx, lease);
  const now = Date.now();
  switch (result.outcome) {
    case 'done': {
      const held = await jobsRepo.complete(deps.db, lease, toIso(now));
      if (held) logger.info({ duration_ms: now - started }, 'job done');
      else logger.warn('job finished after its lease was taken over by another worker');
      return;
    }
    case 'error': {
      const error = describeError(result.error);
      if (job.attempt < job.maxAttempts) {
        const delay = computeRetryDelayMs(job.attempt, deps.config.worker.retryBaseSeconds);
        await jobsRepo.retry(deps.db, lease, toIso(now + delay), error, toIso(now));
        logger.warn({ err: result.error, retry_in_ms: delay }, 'job failed; will retry');
      } else {
        logger.error({ err: result.error }, 'job failed on its last attempt');
        await failJobForGood(deps, definition, payload.data, ctx, lease, error, result.error);
      }
      return;
    }
  }
}

function parsePayload(definition: JobDefinition, raw: string) {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { success: false as const, error: 'not valid JSON' };
  }
  const parsed = definition.payload.safeParse(json);
  return parsed.success
    ? { success: true as const, data: parsed.data }
    : { success: false as const, error: z.prettifyError(parsed.error) };
}

/** Runs the handler while renewing the lease, so a long job is not taken for a dead one. */
async function runWithLease(
  deps: Deps,
  definition: JobDefinition,
  payload: unknown,
  ctx: JobContext,
  lease: JobLease,
): Promise<Outcome> {
  const leaseMs = deps.config.worker.leaseSeconds * 1000;
  const renewal = startLeaseRenewal({
    leaseMs,
    renew: () => {
      const now = Date.now();
      return jobsRepo.extendLease(deps.db, lease, toIso(now + leaseMs), toIso(now)).then((held) => {
        if (!held) ctx.logger.warn('job lease was lost to another worker');
      });
    },
    onError: (error) => ctx.logger.warn({ err: error }, 'could not extend the job lease'),
  });
  try {
    await definition.run(payload, ctx);
    return { outcome: 'done' };
  } catch (error) {
    return { outcome: 'error', error };
  } finally {
    await renewal.stop();
  }
}

/** Fails a job whose handler cannot even start (unknown type, bad payload): retrying cannot help. */
async function failJob(deps: Deps, logger: Logger, lease: JobLease, error: string) {
  await jobsRepo.fail(deps.db, lease, error, nowIso());
  logger.error({ error }, 'job failed');
}

/**
 * Marks the job failed and runs its `onFinalFailure` hook in the same transaction, so the job is never
 * failed while what it was responsible for stays pending. If the hook itself throws, the job is still
 * failed (a hook failing every time must not make the job run forever).
 */
async function failJobForGood(
  deps: Deps,
  definition: JobDefinition,
  payload: unknown,
  ctx: JobContext,
  lease: JobLease,
  error: string,
  cause: unknown,
) {
  try {
    await deps.db.transaction().execute(async (trx) => {
      const held = await jobsRepo.fail(trx, lease, error, nowIso());
      if (held) await definition.onFinalFailure?.(payload, { ...ctx, db: trx, error, cause });
    });
  } catch (hookError) {
    ctx.logger.error({ err: hookError }, 'onFinalFailure hook failed');
    await jobsRepo.fail(
      deps.db,
      lease,
      `${error} (onFinalFailure failed: ${describeError(hookError)})`,
      nowIso(),
    );
  }
}
