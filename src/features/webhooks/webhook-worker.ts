import pg from 'pg';
import type { Logger } from 'pino';
import { WEBHOOK_EVENTS_CHANNEL } from '../../db/migrations/0002-webhooks.ts';
import type { Deps } from '../../deps.ts';
import { startLeaseRenewal } from '../../lib/lease-renewal.ts';
import { POLL_JITTER, startPollLoop } from '../../lib/poll-loop.ts';
import { toIso } from '../../lib/time.ts';
import { createWorkerId } from '../../lib/worker-id.ts';
import {
  type AttemptRecord,
  type DeliveryRow,
  type DeliveryTarget,
  deliveriesRepo,
  type Outcome,
  spaceKey,
} from './delivery/deliveries.repo.ts';
import { type AttemptResult, executeDelivery } from './delivery/execute-delivery.ts';
import { fanOutSome } from './delivery/fan-out-events.ts';
import { decideAfterAttempt, decideBeforeSending } from './delivery/retry-policy.ts';
import { overlappingSecret } from './delivery/sign-payload.ts';
import {
  createCachingLookup,
  createOutboundAgents,
  createOutboundPolicy,
  type Lookup,
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
  /** Guarded DNS answers cached briefly (every use is still vetted and pinned). */
  lookup: Lookup;
  leaseMs: number;
  logger: Logger;
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
    lookup: createCachingLookup(),
    // Renewed every third of it while the attempt runs (pump): short, so a killed worker's claims are taken
    // over soon, whatever the attempt timeout.
    leaseMs: webhookDelivery.leaseSeconds * 1000,
    logger: deps.logger.child({ component: 'webhooks', worker_id: workerId }),
  };
}

/**
 * What the pump waits for: new events (an outside wake or a poll tick: fan out and claim) or progress (an
 * attempt finished: record it and claim into the freed slot). Flags, so a signal given while the pump was
 * busy is not lost.
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
  /** Wakes a waiting pump without flagging anything (it re-evaluates its state; a running one does anyway). */
  nudge(): void {
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
  /** Waits for an attempt to finish (new events are left flagged for the next pass). */
  async waitProgress(): Promise<void> {
    while (!this.takeProgress()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}

/**
 * How long a finished attempt's outcome may wait for the next claim, to be recorded in the same transaction
 * (well within any lease: the lease covers the timeout plus at least one second).
 */
const RECORD_DELAY_MS = 50;

/** A finished attempt waiting to be recorded, and what to log once it is. */
interface Finished {
  outcome: Outcome;
  /** Called with whether the lease was still held when the outcome was recorded. */
  recorded(held: boolean): void;
}

/**
 * Fans out queued events, then claims and sends due deliveries with up to WEBHOOKS_CONCURRENCY attempts in
 * flight, until nothing is due. Returns the number of attempts made.
 *
 * Bookkeeping runs in cycles (deliveriesRepo.cycle): the outcomes of the attempts that finished since the
 * last cycle are recorded, and deliveries are claimed for the free slots. A slot is free as soon as its HTTP
 * attempt ends (its outcome goes with the next cycle), so the receiver never waits for the database, and
 * under load one cycle records and claims a whole batch. On PostgreSQL two cycles may be in flight at once
 * (the next claim does not wait for the previous round trip); SQLite runs them one after another.
 */
async function pump(rt: Runtime, signals: Signals, signal?: AbortSignal): Promise<number> {
  const { deps } = rt;
  const concurrency = deps.config.webhookDelivery.concurrency;
  // Claim in batches rather than one row per freed slot: fewer cycles when busy.
  const lowWater = Math.max(1, Math.floor(concurrency / 4));
  const maxCycles = deps.dialect === 'postgres' ? 2 : 1;
  const finished: (Finished & { at: number })[] = [];
  const cycles = new Set<Promise<unknown>>();
  let inflight = 0;
  // Attempts in flight per account and mode (spaceKey): a claim gives each space at most its cap.
  const busy = new Map<string, number>();
  const perSpace = { cap: deps.config.webhookDelivery.concurrencyPerAccount, busy };
  const occupy = (space: string, delta: number) => {
    const n = (busy.get(space) ?? 0) + delta;
    if (n > 0) busy.set(space, n);
    else busy.delete(space);
  };
  // Leases this pass holds (claimed, outcome not recorded yet): renewed every third of the lease.
  const held = new Set<string>();
  const renewals = renewHeldLeases(rt, held);
  // Slots promised to the claims of cycles in flight.
  let reserved = 0;
  let attempts = 0;
  let fanOutNeeded = true;
  let failure: { error: unknown } | undefined;
  let cycleError: { error: unknown } | undefined;
  let recordedLast = false;
  let lastFull = false;
  let reminder: NodeJS.Timeout | undefined;
  const remindIn = (ms: number) => {
    if (reminder) return;
    reminder = setTimeout(() => {
      reminder = undefined;
      signals.attemptDone();
    }, ms);
  };

  /** Starts a cycle; resolves with its error (the outcomes are then put back), if any. Never rejects. */
  const startCycle = (claim: boolean): Promise<unknown> => {
    const batch = finished.splice(0);
    const now = Date.now();
    const free = claim ? concurrency - inflight - reserved : 0;
    reserved += free;
    // Whether the loop has something to do once the cycle ends (an empty claim while attempts are in flight
    // does not: their completion wakes it).
    let wake = true;
    const run = deliveriesRepo
      .cycle(deps.db, deps.dialect, {
        workerId: rt.workerId,
        outcomes: batch.map((f) => f.outcome),
        claim:
          free > 0 ? { now: toIso(now), lockedUntil: toIso(now + rt.leaseMs), limit: free, perSpace } : null,
      })
      .then(
        (result) => {
          for (const f of batch) {
            held.delete(f.outcome.lease.id);
            f.recorded(result.held.has(f.outcome.lease.id));
          }
          for (const row of result.claimed.rows) {
            inflight++;
            attempts++;
            held.add(row.id);
            const space = spaceKey(row.account_id, row.mode);
            occupy(space, 1);
            void attemptDelivery(rt, row, result.claimed.targets.get(row.id)).then((f) => {
              if (f) finished.push({ ...f, at: Date.now() });
              else held.delete(row.id);
              inflight--;
              occupy(space, -1);
              signals.attemptDone();
            });
          }
          // A claim that ran alongside the recording did not see what the outcomes unblocked (the next
          // event of a note): the next cycle claims it.
          recordedLast = batch.length > 0;
          lastFull = free > 0 && result.claimed.rows.length === free;
          wake = result.claimed.rows.length > 0 || batch.length > 0 || finished.length > 0 || inflight === 0;
          return undefined;
        },
        (error: unknown) => {
          // Rolled back: nothing was recorded. The outcomes are tried again (the pass ends, see below).
          finished.unshift(...batch);
          cycleError ??= { error };
          return error ?? new Error('webhook bookkeeping failed');
        },
      )
      .finally(() => {
        reserved -= free;
        cycles.delete(run);
        if (wake) signals.nudge();
      });
    cycles.add(run);
    return run;
  };

  try {
    while (!signal?.aborted) {
      if (cycleError) throw cycleError.error;
      signals.takeProgress();
      if (signals.takeEvents() || fanOutNeeded) {
        // One batch at a time, alternating with deliveries: a burst starts going out while it is fanned out.
        fanOutNeeded = (await fanOutSome(deps.db, deps.dialect, { maxBatches: 1 })).more;
      }
      // Let the responses that arrived in this turn of the event loop join the cycle.
      if (inflight > 0) await new Promise((resolve) => setImmediate(resolve));
      const free = concurrency - inflight - reserved;
      const claim = free >= lowWater || (inflight === 0 && cycles.size === 0);
      // Outcomes wait for the next claim (recorded in the same cycle), but not longer than RECORD_DELAY_MS.
      const waited = finished.length ? Date.now() - finished[0]!.at : 0;
      if (cycles.size < maxCycles && (claim || waited >= RECORD_DELAY_MS)) {
        const run = startCycle(claim);
        // Nothing else going on (or no cycle left to start): wait for this one here.
        if (cycles.size >= maxCycles || inflight === 0) {
          const error = await run;
          if (error) throw error;
          // A full batch: more may be due.
          if (lastFull) continue;
        }
      }
      if (finished.length && !(claim || waited >= RECORD_DELAY_MS)) remindIn(RECORD_DELAY_MS - waited);
      if (inflight === 0 && finished.length === 0 && cycles.size === 0) {
        // Idle: done unless outcomes were recorded by the last cycle or an attempt finished while claiming
        // (either may unblock the next event of its note), or events arrived since the last fan-out.
        if (recordedLast || fanOutNeeded || signals.takeProgress() || signals.takeEvents()) {
          recordedLast = false;
          continue;
        }
        const more = await fanOutSome(deps.db, deps.dialect, { maxBatches: 1 });
        fanOutNeeded = more.more;
        if (more.created > 0 || more.more) continue;
        break;
      }
      await signals.wait();
    }
  } catch (error) {
    failure = { error };
  }
  clearTimeout(reminder);
  // Stopping (or a failed cycle): claim nothing more, record what the attempts in flight come to.
  let retries = 0;
  while (inflight > 0 || finished.length > 0 || cycles.size > 0) {
    if (cycles.size > 0) {
      await Promise.all(cycles);
      continue;
    }
    if (finished.length) {
      const error = await startCycle(false);
      if (!error) retries = 0;
      else if (++retries >= 3) {
        // Unrecorded outcomes: their leases run out and the deliveries are sent again (at-least-once).
        rt.logger.error({ err: error, outcomes: finished.length }, 'could not record webhook attempts');
        for (const f of finished.splice(0)) held.delete(f.outcome.lease.id);
      } else await new Promise((resolve) => setTimeout(resolve, 100 * retries));
      continue;
    }
    if (inflight > 0) await signals.waitProgress();
  }
  await renewals.stop();
  if (failure) throw failure.error;
  return attempts;
}

/**
 * Keeps the leases of a pass's claimed deliveries alive (lib/lease-renewal.ts): every third of the lease, one
 * UPDATE moves their `locked_until` forward (only rows this worker still holds). So leases can be short
 * (WEBHOOKS_LEASE_SECONDS, default 15 s) and a killed worker's deliveries are taken over within about one lease,
 * while a slow attempt (up to WEBHOOKS_TIMEOUT_MS) keeps its lease. A failed renewal is logged; the lease may
 * then run out and the delivery be sent again by another worker (at-least-once).
 */
function renewHeldLeases(rt: Runtime, held: ReadonlySet<string>): { stop(): Promise<void> } {
  return startLeaseRenewal({
    leaseMs: rt.leaseMs,
    renew: () =>
      held.size === 0
        ? undefined
        : deliveriesRepo.renewLeases(rt.deps.db, {
            workerId: rt.workerId,
            ids: [...held],
            lockedUntil: toIso(Date.now() + rt.leaseMs),
          }),
    onError: (error) => rt.logger.warn({ err: error }, 'could not renew webhook delivery leases'),
  });
}

/**
 * Sends one claimed delivery; resolves with the outcome to record (null: nothing to record) and never throws
 * (failures are logged; the lease runs out and the delivery is attempted again).
 */
async function attemptDelivery(
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
 * notification from any process) and every WEBHOOKS_POLL_MS +0–10% (retries that came due, events of processes
 * that cannot wake this one). A failed pass is logged and retried at the next tick.
 */
export function startWebhookWorker(deps: Deps, options: { workerId?: string } = {}): WebhookWorker {
  const rt = createRuntime(deps, options.workerId ?? createWorkerId());
  const signals = new Signals();
  const loop = startPollLoop({
    name: 'webhook worker',
    intervalMs: deps.config.webhookDelivery.pollMs,
    // Ticks go on while a pass runs: the pass then fans out and claims again (also retries that came due).
    ticks: 'fixed-rate',
    jitter: POLL_JITTER,
    holdProcess: false,
    pass: (signal) => pump(rt, signals, signal),
    onError: (error) => rt.logger.error({ err: error }, 'webhook delivery pass failed'),
    wakeups: { set: () => signals.newEvents(), take: () => signals.takeEvents() },
  });
  const listener = listenForEvents(rt, loop.wake);
  rt.logger.info(
    { poll_ms: deps.config.webhookDelivery.pollMs, concurrency: deps.config.webhookDelivery.concurrency },
    'webhook worker started',
  );
  return {
    wake: loop.wake,
    async stop() {
      await loop.stop();
      await listener.close();
      rt.agents.destroy();
      rt.logger.info('webhook worker stopped');
    },
  };
}
