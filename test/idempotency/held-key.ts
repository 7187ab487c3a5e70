import type { Harness } from '../helpers/harness.ts';

/**
 * Writes an idempotency key as a request that is still running (or crashed) leaves it: claimed, no stored answer.
 */
export async function insertHeldKey(
  h: Harness,
  accountId: string,
  key: string,
  held: { requestHash: string; since: Date },
): Promise<void> {
  await h.db.db
    .insertInto('idempotency_keys')
    .values({
      account_id: accountId,
      mode: 'live',
      key,
      request_hash: held.requestHash,
      response_status: null,
      response_body: null,
      created_at: held.since.toISOString(),
    })
    .execute();
}
