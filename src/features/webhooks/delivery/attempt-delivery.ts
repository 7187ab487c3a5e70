import { toIso } from '../../../lib/time.ts';
import type { AttemptRecord, DeliveryRow, DeliveryTarget, Outcome } from './deliveries.repo.ts';
import type { Runtime } from './delivery-runtime.ts';
import { type AttemptResult, executeDelivery } from './execute-delivery.ts';
import { decideAfterAttempt, decideBeforeSending } from './retry-policy.ts';
import { overlappingSecret } from './sign-payload.ts';

/** A finished attempt waiting to be recorded, and what to log once it is. */
export interface Finished {
  outcome: Outcome;
  /** Called with whether the lease was still held when the outcome was recorded. */
  recorded(held: boolean): void;
}

/**
 * Sends one claimed delivery; resolves with the outcome to record (null: nothing to record) and never throws
 * (failures are logged; the lease runs out and the delivery is attempted again).
 */
export async function attemptDelivery(
  rt: Runtime,
  row: DeliveryRow,
  target: DeliveryTarget | undefined,
): Promise<Finished | null> {
  const { deps } = rt;
  const lease = { id: row.id, attempt: Number(row.attempts) };
  const context = {
    delivery_id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt: lease.attempt,
  };
  const log = rt.logger;
  const nowIso = () => toIso(Date.now());
  try {
    if (row.lease_lost && lease.attempt > 1)
      log.warn(context, 'previous attempt was lost: its worker stopped before recording the outcome');
    // The webhook was deleted after the claim: its deliveries went with it.
    if (!target) return null;
    const schedule = deps.config.webhooks.retryScheduleSeconds;
    const skip = decideBeforeSending({
      attempt: lease.attempt,
      scheduleSeconds: schedule,
      webhookActive: target.active === 1,
    });
    if (skip) {
      const next = { status: skip.kind === 'cancelled' ? 'cancelled' : 'failed', now: nowIso() } as const;
      return {
        outcome: { lease, next, attempt: null },
        recorded: () =>
          skip.kind === 'cancelled'
            ? log.info(context, 'delivery cancelled: the webhook is not active')
            : log.error(context, 'delivery failed: its last attempt was lost'),
      };
    }
    const startedAt = nowIso();
    const result: AttemptResult =
      target.payload === null
        ? { outcome: 'failed', reason: 'network', error: 'The event no longer exists.', durationMs: 0 }
        : await executeDelivery({
            url: target.url,
            secret: target.secret,
            previousSecret: overlappingSecret(target, startedAt),
            eventId: row.event_id,
            eventType: row.event_type,
            payload: target.payload,
            timeoutMs: deps.config.webhookDelivery.timeoutMs,
            policy: rt.policy,
            agents: rt.agents,
            lookup: rt.lookup,
          });
    const completedAt = nowIso();
    const attempt: AttemptRecord = {
      started_at: startedAt,
      completed_at: completedAt,
      duration_ms: result.durationMs,
      status_code: result.statusCode ?? null,
      error: result.outcome === 'failed' ? result.error : null,
      response_body: result.responseBody ?? null,
    };
    const fields = () => ({
      ...context,
      status_code: result.statusCode,
      duration_ms: result.durationMs,
      host: safeHost(target.url),
      ...(result.outcome === 'failed' && result.detail ? { refused: result.detail } : {}),
    });
    const error = result.outcome === 'failed' ? result.error : undefined;
    const decision = decideAfterAttempt({
      attempt: lease.attempt,
      scheduleSeconds: schedule,
      result,
      eventGone: target.payload === null,
      now: Date.now(),
    });
    switch (decision.kind) {
      case 'delivered':
        return {
          outcome: { lease, next: { status: 'succeeded', now: completedAt }, attempt },
          recorded: (held) => {
            if (!held) log.warn(fields(), 'webhook delivered after the lease was lost; outcome not recorded');
            else if (log.isLevelEnabled('info')) log.info(fields(), 'webhook delivered');
          },
        };
      case 'retry':
        return {
          outcome: {
            lease,
            next: { status: 'pending', now: completedAt, nextAttemptAt: toIso(decision.at) },
            attempt,
          },
          recorded: () =>
            log.warn(
              { ...fields(), error, retry_in_ms: decision.delayMs },
              'webhook attempt failed; will retry',
            ),
        };
      case 'failed':
        return {
          outcome: { lease, next: { status: 'failed', now: completedAt }, attempt },
          recorded: () => log.error({ ...fields(), error }, 'webhook delivery failed on its last attempt'),
        };
    }
  } catch (error) {
    // The lease runs out and another pass retries the delivery.
    log.error({ ...context, err: error }, 'webhook attempt failed unexpectedly');
    return null;
  }
}

/** Only the host goes into logs: a URL's path or query may carry the receiver's own tokens. */
function safeHost(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
