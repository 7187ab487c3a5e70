import type { Selectable } from 'kysely';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { spaceOf } from '../../lib/space.ts';
import { nowIso } from '../../lib/time.ts';
import type { Actor, Scope } from '../api-keys/scopes.ts';
import { EVENT_TYPES } from '../events/events.ts';
import { newDeliveryRow } from './delivery/delivery-row.ts';
import { checkUrlStatically, createOutboundPolicy, type OutboundPolicy } from './outbound/guarded-request.ts';
import { webhooksRepo } from './webhooks.repo.ts';
import type { CreateWebhookInput, ListDeliveriesInput, UpdateWebhookInput } from './webhooks.schema.ts';
import type { WebhooksTable } from './webhooks.tables.ts';
import { toDelivery, toWebhook, toWebhookListItem } from './webhooks.view.ts';

/**
 * 400 on `url` unless the server's outbound policy accepts it (scheme, credentials, private IP literals). Host
 * names are not resolved here: one resolving to a private address (`localhost` too) is refused at delivery.
 */
function assertUrlAllowed(url: string, policy: OutboundPolicy): void {
  const problem = checkUrlStatically(url, policy);
  if (problem) throw new AppError('parameter_invalid', `Invalid 'url': ${problem}.`, { param: 'url' });
}

/** Where this server's webhooks may point (WEBHOOKS_ALLOW_PRIVATE_TARGETS, WEBHOOKS_ALLOW_HOSTS). */
export function outboundPolicy(config: Config): OutboundPolicy {
  return createOutboundPolicy({
    allowPrivateTargets: config.webhooks.allowPrivateTargets,
    allowHosts: config.webhookDelivery.allowHosts,
  });
}

async function findWebhook(db: Db, actor: Actor, id: string): Promise<Selectable<WebhooksTable>> {
  const webhook = await webhooksRepo.find(db, spaceOf(actor), id);
  if (!webhook) throw notFound('webhook', id);
  return webhook;
}

/**
 * Subscribes a URL to event types in the caller's account and mode. It receives events written from now on,
 * never earlier ones; a test key's webhook receives test-mode events only.
 */
export async function createWebhook(deps: Deps, actor: Actor, input: CreateWebhookInput) {
  assertUrlAllowed(input.url, outboundPolicy(deps.config));
  const { maxPerAccount } = deps.config.webhooks;
  const now = nowIso();
  const row = {
    id: newId('webhook'),
    account_id: actor.accountId,
    mode: actor.mode,
    url: input.url,
    events: JSON.stringify(input.events),
    secret: input.secret ?? null,
    active: 1,
    created_at: now,
    updated_at: now,
  };
  await deps.db.transaction().execute(async (trx) => {
    await webhooksRepo.lockAccount(trx, deps.dialect, actor.accountId);
    if ((await webhooksRepo.count(trx, spaceOf(actor), maxPerAccount)) >= maxPerAccount) {
      throw new AppError(
        'webhook_limit_reached',
        `This account already has ${maxPerAccount} ${actor.mode} webhooks, the most allowed ` +
          '(WEBHOOKS_MAX_PER_ACCOUNT). Delete one, or subscribe one URL to several event types.',
      );
    }
    await webhooksRepo.insert(trx, row);
  });
  return toWebhook(row);
}

/** The scope that reads what an event of this type carries (its `data`): the scope of the matching GET. */
export function scopeToRead(eventType: string): Scope {
  if (eventType === 'action_item.created') return 'actions:read';
  if (eventType === 'recording.ready') return 'recordings:read';
  return 'notes:read';
}

/**
 * Every webhook of the caller's account and mode, oldest first. Not paged (API.md): WEBHOOKS_MAX_PER_ACCOUNT
 * bounds it.
 */
export async function listWebhooks(deps: Deps, actor: Actor) {
  return { data: (await webhooksRepo.list(deps.db, spaceOf(actor))).map(toWebhookListItem) };
}

/** One webhook; 404 for ids of other accounts or the other mode. */
export async function getWebhook(deps: Deps, actor: Actor, id: string) {
  return toWebhook(await findWebhook(deps.db, actor, id));
}

/**
 * Changes url, events, active or secret. Deactivating cancels the deliveries still waiting (an attempt in
 * flight finishes and is logged); events written while inactive are never sent, also not after reactivation.
 *
 * A new URL is a new receiver: events written before the change were meant for the old one. Deliveries of them
 * still waiting follow the webhook to the new URL only for event types the key may read (`scopeToRead`); the
 * others are cancelled, so that `webhooks:manage` alone cannot read notes by pointing a webhook elsewhere while
 * retries are pending (docs/security.md).
 */
export async function updateWebhook(deps: Deps, actor: Actor, id: string, input: UpdateWebhookInput) {
  if (input.url !== undefined) assertUrlAllowed(input.url, outboundPolicy(deps.config));
  return deps.db.transaction().execute(async (trx) => {
    const webhook = await findWebhook(trx, actor, id);
    const now = nowIso();
    const patch: Parameters<typeof webhooksRepo.update>[2] = { updated_at: now };
    if (input.url !== undefined) patch.url = input.url;
    if (input.events !== undefined) patch.events = JSON.stringify(input.events);
    if (input.active !== undefined) patch.active = input.active ? 1 : 0;
    if (input.secret !== undefined) {
      // A new secret through PATCH cuts over at once: a rotation's overlap ends with it.
      Object.assign(patch, { secret: input.secret, previous_secret: null, previous_secret_expires_at: null });
    }
    await webhooksRepo.update(trx, id, patch);
    if (input.url !== undefined && input.url !== webhook.url) {
      await webhooksRepo.markUrlChanged(trx, id);
      const unreadable = [...EVENT_TYPES].filter((type) => !actor.scopes.has(scopeToRead(type)));
      await webhooksRepo.cancelWaitingOfTypes(trx, id, unreadable, now);
    }
    if (input.active === false && webhook.active === 1) await webhooksRepo.cancelWaiting(trx, id, now);
    return toWebhook({ ...webhook, ...patch });
  });
}

/** Deletes the webhook; deliveries not yet sent are cancelled with it (and its attempt log removed). */
export async function deleteWebhook(deps: Deps, actor: Actor, id: string) {
  await deps.db.transaction().execute(async (trx) => {
    await findWebhook(trx, actor, id);
    await webhooksRepo.delete(trx, id);
  });
  return { deleted: true as const };
}

/** The webhook's deliveries, newest first, each with its attempts (status, duration, error, response). */
export async function listDeliveries(
  deps: Deps,
  actor: Actor,
  webhookId: string,
  input: ListDeliveriesInput,
) {
  const { db } = deps;
  await findWebhook(db, actor, webhookId);
  const { rows, total } = await webhooksRepo.listDeliveries(
    db,
    webhookId,
    { status: input.status, eventId: input.event_id },
    { limit: input.per_page, offset: (input.page - 1) * input.per_page },
  );
  const attempts = await webhooksRepo.attemptsOf(
    db,
    rows.map((r) => r.id),
  );
  return {
    data: rows.map((row) =>
      toDelivery(
        row,
        attempts.filter((a) => a.delivery_id === row.id),
      ),
    ),
    meta: { page: input.page, per_page: input.per_page, total },
  };
}

/**
 * Sends a delivery's event again, as a new delivery (new `dlv_` id, same event id in `X-Svc-Delivery` and
 * `webhook-id`) with its own retries. The webhook must be active. An event written before the webhook's URL
 * last changed was meant for another receiver: resending it to the current URL needs the scope that reads it
 * (403 otherwise), so `webhooks:manage` alone cannot read past notes by moving a webhook (docs/security.md).
 */
export async function redeliverDelivery(deps: Deps, actor: Actor, webhookId: string, deliveryId: string) {
  const created = await deps.db.transaction().execute(async (trx) => {
    const webhook = await findWebhook(trx, actor, webhookId);
    const original = await webhooksRepo.findDelivery(trx, webhookId, deliveryId);
    if (!original) throw notFound('delivery', deliveryId);
    const needed = scopeToRead(original.event_type);
    if (Number(original.event_seq) <= Number(webhook.url_changed_seq) && !actor.scopes.has(needed)) {
      throw new AppError(
        'insufficient_scope',
        `Delivery '${deliveryId}' carries an event written before this webhook's URL changed; resending it to ` +
          `the new URL needs the '${needed}' scope, which this API key lacks.`,
      );
    }
    if (webhook.active !== 1) {
      throw new AppError(
        'parameter_invalid',
        `Webhook '${webhookId}' is not active; activate it (PATCH active: true) before redelivering.`,
        { param: 'id' },
      );
    }
    const now = nowIso();
    const row = newDeliveryRow(
      {
        account_id: original.account_id,
        mode: original.mode,
        webhook_id: webhookId,
        event_id: original.event_id,
        event_seq: original.event_seq,
        event_type: original.event_type,
      },
      now,
      // A redelivery is an explicit out-of-order resend: it neither waits for nor holds back other events.
      { redelivery_of: original.id },
    );
    await webhooksRepo.insertDelivery(trx, row);
    return row;
  });
  // Committed: let an in-process worker send it now rather than at its next poll.
  deps.wakeWorker();
  return toDelivery(created, []);
}
