import type { Db, Mode } from '../../db/schema.ts';
import { toIso } from '../../lib/time.ts';

/** One Idempotency-Key of one data space. */
export interface KeySpace {
  account_id: string;
  mode: Mode;
  key: string;
}

/**
 * Stores the answer to an idempotent request. A service calls it inside the transaction that makes the
 * change, so the change and the answer a retry replays commit together: a crash right after the commit
 * replays, it never runs the request twice. `resourceId` names the object the answer describes, so deleting
 * that object can redact the stored copy.
 */
export type SaveIdempotentResponse = (trx: Db, resourceId: string, body: unknown) => Promise<void>;

/** What the HTTP layer hands a service: the saver, bound to the key and the status the route answers with. */
export function responseSaver(space: KeySpace, hash: string, status: number, onSaved: () => void) {
  const save: SaveIdempotentResponse = async (trx, resourceId, body) => {
    await completeKey(trx, space, hash, { status, body: JSON.stringify(body), resourceId });
    onSaved();
  };
  return save;
}

/** Fills in the answer of a claimed key (still in progress, same request). */
export async function completeKey(
  db: Db,
  space: KeySpace,
  hash: string,
  response: { status: number; body: string; resourceId?: string },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({
      response_status: response.status,
      response_body: response.body,
      resource_id: response.resourceId ?? null,
    })
    .where('account_id', '=', space.account_id)
    .where('mode', '=', space.mode)
    .where('key', '=', space.key)
    .where('request_hash', '=', hash)
    .where('response_status', 'is', null)
    .execute();
}

/**
 * Forgets the stored answers describing these objects, which were deleted: the key stays used (a retry does
 * not create the object again) but a replay answers 404 instead of the deleted content. Call it in the
 * transaction that deletes them.
 */
export async function redactResponsesOf(db: Db, resourceIds: readonly string[]): Promise<void> {
  if (!resourceIds.length) return;
  await db
    .updateTable('idempotency_keys')
    .set({ response_status: 404, response_body: null })
    .where('resource_id', 'in', resourceIds)
    .execute();
}

/** Removes keys older than the retention (their answers with them); returns how many. */
export async function purgeKeys(db: Db, olderThanMs: number, now = Date.now()): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', toIso(now - olderThanMs))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
