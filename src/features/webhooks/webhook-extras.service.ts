import type { Deps } from '../../deps.ts';
import { notFound } from '../../lib/errors.ts';
import { newId, randomBase62 } from '../../lib/ids.ts';
import { nowIso, toIso } from '../../lib/time.ts';
import type { Actor } from '../api-keys/scopes.ts';
import { TEST_EVENT_TYPE } from '../events/events.ts';
import { newDeliveryRow } from './delivery/delivery-row.ts';
import { executeDelivery, KEPT_RESPONSE_BYTES } from './delivery/execute-delivery.ts';
import { overlappingSecret } from './delivery/sign-payload.ts';
import { takeTestEventSlot } from './delivery/test-event-slots.ts';
import { webhooksRepo } from './webhooks.repo.ts';
import type { RotateSecretInput } from './webhooks.schema.ts';
import { outboundPolicy } from './webhooks.service.ts';
import { webhooksDb } from './webhooks.tables.ts';

const spaceOf = (actor: Actor) => ({ accountId: actor.accountId, mode: actor.mode });

async function findWebhook(deps: Pick<Deps, 'db'>, actor: Actor, id: string) {
  const webhook = await webhooksRepo.find(deps.db, spaceOf(actor), id);
  if (!webhook) throw notFound('webhook', id);
  return webhook;
}

/** What `POST /v1/webhooks/:id/test` answers. */
export interface TestDeliveryResult {
  delivered: boolean;
  status_code?: number;
  error?: string;
  duration_ms: number;
  delivery_id: string;
  event_id: string;
}

/**
 * Sends a signed `webhook.test` event to this webhook only, now, once (no retries), through the same
 * signing and outbound guard as every delivery (a rotated-out secret in its overlap signs too), and logs it
 * like any delivery: the event is written to the outbox (no webhook can subscribe to its type, so fan-out
 * skips it) and the delivery with its one attempt to the delivery log, in one transaction after the attempt.
 * Works on an inactive webhook too (so an endpoint can be checked before it is switched on). 404 for
 * another account's or mode's webhook. Redelivering the logged delivery sends the same event again. At most
 * WEBHOOKS_CONCURRENCY_PER_ACCOUNT test events of an account are in flight in a process (429 beyond).
 */
export async function sendTestEvent(
  deps: Deps,
  actor: Actor,
  webhookId: string,
): Promise<TestDeliveryResult> {
  const webhook = await findWebhook(deps, actor, webhookId);
  const eventId = newId('event');
  const createdAt = nowIso();
  const payload = JSON.stringify({
    id: eventId,
    type: TEST_EVENT_TYPE,
    created_at: createdAt,
    data: {
      webhook_id: webhook.id,
      message: 'A test event sent with POST /v1/webhooks/{id}/test. No action is needed.',
    },
  });
  const { timeoutMs, concurrencyPerAccount } = deps.config.webhookDelivery;
  const release = takeTestEventSlot(
    `${webhook.account_id}:${webhook.mode}`,
    concurrencyPerAccount,
    Math.ceil(timeoutMs / 1000),
  );
  const startedAt = nowIso();
  const result = await executeDelivery({
    url: webhook.url,
    secret: webhook.secret,
    previousSecret: overlappingSecret(webhook, startedAt),
    eventId,
    eventType: TEST_EVENT_TYPE,
    payload,
    timeoutMs,
    policy: outboundPolicy(deps.config),
    agents: deps.outbound,
  }).finally(release);
  const completedAt = nowIso();
  const deliveryId = newId('delivery');
  await deps.db.transaction().execute(async (trx) => {
    const wdb = webhooksDb(trx);
    const event = await wdb
      .insertInto('events')
      .values({
        id: eventId,
        account_id: webhook.account_id,
        mode: webhook.mode,
        type: TEST_EVENT_TYPE,
        payload,
        created_at: createdAt,
      })
      .returning('seq')
      .executeTakeFirstOrThrow();
    // Deleted while the attempt ran: nothing to log it under.
    const still = await webhooksRepo.find(trx, spaceOf(actor), webhook.id);
    if (!still) return;
    await webhooksRepo.insertDelivery(
      trx,
      newDeliveryRow(
        {
          account_id: webhook.account_id,
          mode: webhook.mode,
          webhook_id: webhook.id,
          event_id: eventId,
          event_seq: Number(event.seq),
          event_type: TEST_EVENT_TYPE,
        },
        startedAt,
        {
          id: deliveryId,
          status: result.outcome === 'delivered' ? 'succeeded' : 'failed',
          attempts: 1,
          next_attempt_at: null,
          updated_at: completedAt,
          completed_at: completedAt,
        },
      ),
    );
    await wdb
      .insertInto('delivery_attempts')
      .values({
        delivery_id: deliveryId,
        attempt: 1,
        started_at: startedAt,
        completed_at: completedAt,
        duration_ms: result.durationMs,
        status_code: result.statusCode ?? null,
        error: result.outcome === 'failed' ? result.error : null,
        response_body: result.responseBody?.slice(0, KEPT_RESPONSE_BYTES + 1) ?? null,
      })
      .execute();
  });
  const fields = {
    delivery_id: deliveryId,
    webhook_id: webhook.id,
    event_id: eventId,
    event_type: TEST_EVENT_TYPE,
    attempt: 1,
    status_code: result.statusCode,
    duration_ms: result.durationMs,
  };
  if (result.outcome === 'delivered') deps.logger.info(fields, 'webhook test delivered');
  else {
    const refused = result.outcome === 'failed' && result.detail ? { refused: result.detail } : {};
    deps.logger.warn({ ...fields, error: result.error, ...refused }, 'webhook test delivery failed');
  }
  return {
    delivered: result.outcome === 'delivered',
    ...(result.statusCode !== undefined ? { status_code: result.statusCode } : {}),
    ...(result.outcome === 'failed' ? { error: result.error } : {}),
    duration_ms: result.durationMs,
    delivery_id: deliveryId,
    event_id: eventId,
  };
}

/** What `POST /v1/webhooks/:id/rotate-secret` answers. */
export interface RotatedSecret {
  id: string;
  /** Only when the server generated it: the one time it is shown. */
  secret?: string;
  /** Until when the replaced secret still signs; absent when nothing overlaps. */
  previous_secret_expires_at?: string;
}

/**
 * Replaces the webhook's signing secret with an overlap: until `previous_secret_expires_at` (now +
 * `overlap_seconds`, default WEBHOOKS_SECRET_OVERLAP_SECONDS) both secrets sign every delivery (two `v1,`
 * signatures in `webhook-signature`; `X-Svc-Signature` uses the new one), so receivers can move to the new
 * secret without rejecting deliveries meanwhile. Without `secret` in the input, one is generated and returned
 * (the only time it is shown). A webhook that had no secret just gets one (nothing overlaps); a rotation during an
 * overlap replaces the older secret (at most two sign). `PATCH` with `secret` still cuts over at once.
 */
export async function rotateWebhookSecret(
  deps: Pick<Deps, 'db' | 'config'>,
  actor: Actor,
  webhookId: string,
  input: RotateSecretInput,
): Promise<RotatedSecret> {
  const generated = input.secret === undefined ? `whsec_${randomBase62(32)}` : undefined;
  const secret = input.secret ?? generated!;
  const overlap = input.overlap_seconds ?? deps.config.webhooks.secretOverlapSeconds;
  return deps.db.transaction().execute(async (trx) => {
    const webhook = await findWebhook({ db: trx }, actor, webhookId);
    const now = Date.now();
    const keepsOld = webhook.secret !== null && webhook.secret !== secret && overlap > 0;
    const expiresAt = keepsOld ? toIso(now + overlap * 1000) : null;
    await webhooksDb(trx)
      .updateTable('webhooks')
      .set({
        secret,
        previous_secret: keepsOld ? webhook.secret : null,
        previous_secret_expires_at: expiresAt,
        updated_at: toIso(now),
      })
      .where('id', '=', webhook.id)
      .execute();
    return {
      id: webhook.id,
      ...(generated ? { secret: generated } : {}),
      ...(expiresAt ? { previous_secret_expires_at: expiresAt } : {}),
    };
  });
}
