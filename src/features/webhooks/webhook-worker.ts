import { hostname } from 'node:os';
import pg from 'pg';
import type { Logger } from 'pino';
import { WEBHOOK_EVENTS_CHANNEL } from '../../db/migrations/0002-webhooks.ts';
import type { Db, Dialect } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { randomBase62 } from '../../lib/ids.ts';
import { toIso } from '../../lib/time.ts';
import {
  type AttemptRecord,
  type DeliveryRow,
  type DeliveryTarget,
  deliveriesRepo,
  type Outcome,
} from './delivery/deliveries.repo.ts';
import { type AttemptResult, executeDelivery } from './delivery/execute-delivery.ts';
import { fanOutEvents } from './delivery/fan-out-events.ts';
import { maxAttempts, retryDelayMs } from './delivery/retry-policy.ts';
import {
  createOutboundAgents,
  createOutboundPolicy,
  type OutboundAgents,
  type OutboundPolicy,
} from './outbound/guarded-request.ts';

export interface WebhookWorker {
  /** Looks for new events and due deliveries now instead of at the next poll. */
  wake(): void;
  /** Stops claiming, waits for the attempts in flight to be recorded, closes connections. */
  stop(): Promise<void>;
}

export interface RunDueDeliveriesOptions {
  /** Recorded in `deliveries.locked_by`; unique per process by default. */
  workerId?: string;
  /** Stops claiming once aborted; attempts in flight are finished and recorded. */
  signal?: AbortSignal;
}

interface Runtime {
  deps: Deps;
  workerId: string;
  policy: OutboundPolicy;
  agents: OutboundAgents;
  leaseMs: number;
  maxAttempts: number;
  logger: Logger;
  recorder: OutcomeRecorder;
}

/**
 * Records outcomes in batches: while one transaction commits, the outcomes that finish meanwhile queue up
 * for the next. Under load this turns one transaction per attempt into one per batch; idle, it records at once.
 */
class OutcomeRecorder {
  private queue: { outcome: Outcome; resolve: (held: boolean) => void; reject: (error: unknown) => void }[] =
    [];
  private flushing = false;
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly workerId: string,
  ) {}

  /** Resolves with whether the lease was still held (false: another worker took the delivery over). */
  record(outcome: Outcome): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ outcome, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    // Let the responses that arrived in this turn of the event loop join the batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length) {
      const batch = this.queue.splice(0);
      try {
        const held = await deliveriesRepo.recordOutcomes(
          this.db,
          this.dialect,
          this.workerId,
          batch.map((b) => b.outcome),
        );
        for (const b of batch) b.resolve(held.has(b.outcome.lease.id));
      } catch (error) {
        for (const b of batch) b.reject(error);
      }
    }
    this.flushing = false;
  }
}

/** host/pid/random: tells operators which process holds a delivery. */
function createWorkerId(): string {
  return `${hostname()}/${process.pid}/${randomBase62(6)}`;
}

function createRuntime(deps: Deps, workerId: string, agents?: OutboundAgents): Runtime {
  const { webhooks, webhookDelivery } = deps.config;
  return {
    deps,
    workerId,
    policy: createOutboundPolicy({
      allowPrivateTargets: webhooks.allowPrivateTargets,
      allowHosts: webhookDelivery.allowHosts,
    }),
    agents: agents ?? createOutboundAgents(webhookDelivery.concurrency),
    // An attempt ends within its timeout; a lease shorter than that would hand live attempts to other workers.
    leaseMs: Math.max(webhookDelivery.leaseSeconds * 1000, webhookDelivery.timeoutMs + 1000),
    maxAttempts: maxAttempts(webhooks.retryScheduleSeconds),
    logger: deps.logger.child({ component: 'webhooks', worker_id: workerId }),
    recorder: new OutcomeRecorder(deps.db, deps.dialect, workerId),
  };
}

/**
 * What the pump waits for: new events (an outside wake or a poll tick: fan out and claim) or progress (an
 * attempt finished: claim into the freed slots). Flags, so a signal given while the pump was busy is not lost.
 */
class Signals {
  private events = false;
  private progress = false;
  private waiters: (() => void)[] = [];
  private release(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }
  newEvents(): void {
    this.events = true;
    this.release();
  }
  attemptDone(): void {
    this.progress = true;
    this.release();
  }
  takeEvents(): boolean {
    const was = this.events;
    this.events = false;
    return was;
  }
  takeProgress(): boolean {
    const was = this.progress;
    this.progress = false;
    return was;
  }
  wait(): Promise<void> {
    return this.events || this.progress
      ? Promise.resolve()
      : new Promise((resolve) => this.waiters.push(resolve));
  }
}

/**
 * Fans out queued events, then claims and sends due deliveries with up to WEBHOOKS_CONCURRENCY attempts in
 * flight, until nothing is due. Returns the number of attempts made.
 */
async function pump(rt: Runtime, signals: Signals, signal?: AbortSignal): Promise<number> {
  const { deps } = rt;
  const concurrency = deps.config.webhookDelivery.concurrency;
  // Claim in batches rather than one row per freed slot: fewer round trips when busy.
  const lowWater = Math.max(1, Math.floor(concurrency / 4));
  const inflight = new Set<Promise<void>>();
  let attempts = 0;
  let fanOutNeeded = true;
  while (!signal?.aborted) {
    signals.takeProgress();
    if (signals.takeEvents() || fanOutNeeded) {
      fanOutNeeded = false;
      await fanOutEvents(deps.db, deps.dialect);
    }
    const free = concurrency - inflight.size;
    if (free >= lowWater || inflight.size === 0) {
      const now = Date.now();
      const claimed = await deliveriesRepo.claim(deps.db, deps.dialect, {
        workerId: rt.workerId,
        now: toIso(now),
        lockedUntil: toIso(now + rt.leaseMs),
        limit: free,
      });
      if (claimed.length) {
        const targets = new Map(
          (
            await deliveriesRepo.targets(
              deps.db,
              claimed.map((d) => d.id),
            )
          ).map((t) => [t.id, t]),
        );
        for (const row of claimed) {
          const run: Promise<void> = attemptDelivery(rt, row, targets.get(row.id)).finally(() => {
            inflight.delete(run);
            signals.attemptDone();
          });
          inflight.add(run);
          attempts++;
        }
        // A full batch: more may be due.
        if (claimed.length === free) continue;
      }
    }
    if (inflight.size === 0) {
      // Idle: done unless an attempt finished while claiming (it may unblock the next event of its note)
      // or events arrived since the last fan-out.
      if (signals.takeProgress() || signals.takeEvents() || (await fanOutEvents(deps.db, deps.dialect)) > 0)
        continue;
      break;
    }
    await signals.wait();
  }
  await Promise.all(inflight);
  return attempts;
}

/** Sends one claimed delivery and records the attempt; never throws (failures are logged). */
async function attemptDelivery(
  rt: Runtime,
  row: DeliveryRow,
  target: DeliveryTarget | undefined,
): Promise<void> {
  const { deps } = rt;
  const lease = { id: row.id, attempt: Number(row.attempts) };
  const log = rt.logger.child({
    delivery_id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt: lease.attempt,
  });
  const nowIso = () => toIso(Date.now());
  try {
    if (row.lease_lost && lease.attempt > 1) {
      await deliveriesRepo.recordLostAttempt(deps.db, row.id, lease.attempt - 1, nowIso());
      log.warn('previous attempt was lost: its worker stopped before recording the outcome');
    }
    // The webhook was deleted after the claim: its deliveries went with it.
    if (!target) return;
    if (target.active !== 1) {
      await rt.recorder.record({ lease, next: { status: 'cancelled', now: nowIso() }, attempt: null });
      log.info('delivery cancelled: the webhook is not active');
      return;
    }
    if (lease.attempt > rt.maxAttempts) {
      await rt.recorder.record({ lease, next: { status: 'failed', now: nowIso() }, attempt: null });
      log.error('delivery failed: its last attempt was lost');
      return;
    }
    const startedAt = nowIso();
    const result: AttemptResult =
      target.payload === null
        ? { outcome: 'failed', reason: 'network', error: 'The event no longer exists.', durationMs: 0 }
        : await executeDelivery({
            url: target.url,
            secret: target.secret,
            eventId: row.event_id,
            eventType: row.event_type,
            payload: target.payload,
            timeoutMs: deps.config.webhookDelivery.timeoutMs,
            policy: rt.policy,
            agents: rt.agents,
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
    const fields = {
      status_code: result.statusCode,
      duration_ms: result.durationMs,
      host: safeHost(target.url),
    };
    if (result.outcome === 'delivered') {
      const held = await rt.recorder.record({
        lease,
        next: { status: 'succeeded', now: completedAt },
        attempt,
      });
      if (held) log.info(fields, 'webhook delivered');
      else log.warn(fields, 'webhook delivered after the lease was lost; outcome not recorded');
      return;
    }
    if (result.reason === 'gone') {
      await rt.recorder.record({
        lease,
        next: { status: 'failed', now: completedAt },
        attempt,
        deactivateWebhook: row.webhook_id,
      });
      log.warn(fields, 'receiver answered 410 Gone: webhook deactivated');
      return;
    }
    const delay =
      target.payload === null ? null : retryDelayMs(lease.attempt, deps.config.webhooks.retryScheduleSeconds);
    if (delay !== null && lease.attempt < rt.maxAttempts) {
      const nextAttemptAt = toIso(Date.now() + delay);
      await rt.recorder.record({
        lease,
        next: { status: 'pending', now: completedAt, nextAttemptAt },
        attempt,
      });
      log.warn({ ...fields, error: result.error, retry_in_ms: delay }, 'webhook attempt failed; will retry');
    } else {
      await rt.recorder.record({ lease, next: { status: 'failed', now: completedAt }, attempt });
      log.error({ ...fields, error: result.error }, 'webhook delivery failed on its last attempt');
    }
  } catch (error) {
    // The lease runs out and another pass retries the delivery.
    log.error({ err: error }, 'could not record a webhook attempt');
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

/**
 * Delivers everything due now, in this process, and returns the number of attempts made: fans out queued
 * events, then claims and sends until no delivery is due (retries scheduled for later are left for later).
 * Safe to run from several processes at once.
 */
export async function runDueDeliveries(deps: Deps, options: RunDueDeliveriesOptions = {}): Promise<number> {
  const rt = createRuntime(deps, options.workerId ?? createWorkerId());
  try {
    return await pump(rt, new Signals(), options.signal);
  } finally {
    rt.agents.destroy();
  }
}

/** Subscribes to PostgreSQL's new-event notifications; reconnects after a lost connection. */
function listenForEvents(rt: Runtime, onEvent: () => void): { close(): Promise<void> } {
  const database = rt.deps.config.database;
  if (database.dialect !== 'postgres') return { close: async () => {} };
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: database.url });
    client = c;
    const reconnect = (error: unknown) => {
      if (closed || client !== c) return;
      rt.logger.warn({ err: error }, 'lost the event notification connection; polling until it is back');
      client = undefined;
      c.end().catch(() => {});
      retry = setTimeout(connect, 5_000);
      retry.unref();
    };
    c.on('notification', onEvent);
    c.on('error', reconnect);
    c.connect()
      .then(() => c.query(`LISTEN ${WEBHOOK_EVENTS_CHANNEL}`))
      .then(onEvent, reconnect);
  };
  connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}

/**
 * Runs the delivery loop in this process: a pass whenever woken (new events: `wake()`, or a PostgreSQL
 * notification from any process) and every WEBHOOKS_POLL_MS (retries that came due, events of processes
 * that cannot wake this one). A failed pass is logged and retried at the next tick.
 */
export function startWebhookWorker(deps: Deps, options: { workerId?: string } = {}): WebhookWorker {
  const rt = createRuntime(deps, options.workerId ?? createWorkerId());
  const stopping = new AbortController();
  const signals = new Signals();
  let pass: Promise<void> | undefined;

  const poll = (): void => {
    if (stopping.signal.aborted) return;
    if (pass) {
      // The running pass fans out and claims again (also retries that came due while it was busy).
      signals.newEvents();
      return;
    }
    signals.takeEvents();
    pass = pump(rt, signals, stopping.signal)
      .then(
        () => undefined,
        (error: unknown) => rt.logger.error({ err: error }, 'webhook delivery pass failed'),
      )
      .finally(() => {
        pass = undefined;
        if (!stopping.signal.aborted && signals.takeEvents()) poll();
      });
  };

  const ticker = setInterval(poll, deps.config.webhookDelivery.pollMs);
  ticker.unref();
  const listener = listenForEvents(rt, poll);
  rt.logger.info(
    { poll_ms: deps.config.webhookDelivery.pollMs, concurrency: deps.config.webhookDelivery.concurrency },
    'webhook worker started',
  );
  poll();
  return {
    wake: poll,
    async stop() {
      stopping.abort();
      clearInterval(ticker);
      signals.newEvents();
      await pass;
      await listener.close();
      rt.agents.destroy();
      rt.logger.info('webhook worker stopped');
    },
  };
}
