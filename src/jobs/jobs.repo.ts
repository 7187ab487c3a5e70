import type { ExpressionBuilder, Selectable, Updateable } from 'kysely';
import type { Database, Db, Dialect, JobsTable } from '../db/schema.ts';

export type JobRow = Selectable<JobsTable>;

/** One claim of a job: a worker may only record the outcome of the attempt it holds (a fencing token). */
export interface JobLease {
  id: string;
  workerId: string;
  attempt: number;
}

const MAX_ERROR_LENGTH = 2000;

const clip = (error: string) =>
  error.length > MAX_ERROR_LENGTH ? `${error.slice(0, MAX_ERROR_LENGTH - 1)}…` : error;

/** The job is still running under this lease (not re-claimed after the lease expired). */
const holds = (lease: JobLease) => (eb: ExpressionBuilder<Database, 'jobs'>) =>
  eb.and([
    eb('id', '=', lease.id),
    eb('status', '=', 'running'),
    eb('locked_by', '=', lease.workerId),
    eb('attempts', '=', lease.attempt),
  ]);

async function updateHeld(db: Db, lease: JobLease, patch: Updateable<JobsTable>): Promise<boolean> {
  const result = await db.updateTable('jobs').set(patch).where(holds(lease)).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export const jobsRepo = {
  /**
   * Claims the next due job in one statement, taking accounts in turn: a job whose worker died (running, its
   * lease expired) first; else the earliest due job of the next account after `after` (the account of the
   * previous claim), wrapping around to the first. So one account's thousands of queued jobs (an import) wait
   * behind a single job of every other account, never the other way round. PostgreSQL skips rows other workers
   * are claiming (FOR UPDATE SKIP LOCKED); SQLite has one writer at a time, so the UPDATE … WHERE id = (SELECT …)
   * cannot race.
   */
  claimNext(
    db: Db,
    dialect: Dialect,
    claim: { workerId: string; now: string; lockedUntil: string; after?: string | undefined },
  ): Promise<JobRow | undefined> {
    const locked = <Q extends { forUpdate(): { skipLocked(): Q } }>(q: Q): Q =>
      dialect === 'postgres' ? q.forUpdate().skipLocked() : q;
    return db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'running',
        attempts: eb('attempts', '+', 1),
        locked_by: claim.workerId,
        locked_until: claim.lockedUntil,
        updated_at: claim.now,
      }))
      .where('id', '=', (eb) => {
        const abandoned = locked(
          eb
            .selectFrom('jobs')
            .select('id')
            .where('status', '=', 'running')
            .where('locked_until', '<', claim.now)
            .orderBy('locked_until')
            .orderBy('id')
            .limit(1),
        );
        const due = () =>
          eb
            .selectFrom('jobs')
            .select('id')
            .where('status', '=', 'queued')
            .where('run_at', '<=', claim.now)
            .orderBy('account_id')
            .orderBy('run_at')
            .orderBy('id')
            .limit(1);
        const next = locked(claim.after === undefined ? due() : due().where('account_id', '>', claim.after));
        const first = locked(due());
        return eb.fn.coalesce(abandoned, next, first);
      })
      .returningAll()
      .executeTakeFirst();
  },

  /** Pushes the lease of a running job forward; false when the lease was lost to another worker. */
  extendLease: (db: Db, lease: JobLease, lockedUntil: string, now: string) =>
    updateHeld(db, lease, { locked_until: lockedUntil, updated_at: now }),

  /** Marks the attempt done; false when the lease was lost (another worker re-ran the job). */
  complete: (db: Db, lease: JobLease, now: string) =>
    updateHeld(db, lease, { status: 'done', locked_by: null, locked_until: null, updated_at: now }),

  /** Puts the job back in the queue to run again at `runAt`. */
  retry: (db: Db, lease: JobLease, runAt: string, error: string, now: string) =>
    updateHeld(db, lease, {
      status: 'queued',
      run_at: runAt,
      last_error: clip(error),
      locked_by: null,
      locked_until: null,
      updated_at: now,
    }),

  /** Marks the job failed for good. */
  fail: (db: Db, lease: JobLease, error: string, now: string) =>
    updateHeld(db, lease, {
      status: 'failed',
      last_error: clip(error),
      locked_by: null,
      locked_until: null,
      updated_at: now,
    }),
};
