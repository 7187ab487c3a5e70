import type { Db, Mode } from '../db/schema.ts';
import { newId } from '../lib/ids.ts';
import { nowIso } from '../lib/time.ts';

/**
 * Adds a job to the durable queue. Call it inside the transaction that creates the work, so a crash
 * can never leave accepted work without its job.
 */
export async function enqueueJob(
  db: Db,
  job: { accountId: string; mode: Mode; type: string; payload: unknown; maxAttempts: number; runAt?: string },
): Promise<string> {
  const id = newId('job');
  const now = nowIso();
  await db
    .insertInto('jobs')
    .values({
      id,
      account_id: job.accountId,
      mode: job.mode,
      type: job.type,
      payload: JSON.stringify(job.payload),
      status: 'queued',
      attempts: 0,
      max_attempts: job.maxAttempts,
      run_at: job.runAt ?? now,
      locked_until: null,
      locked_by: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}
