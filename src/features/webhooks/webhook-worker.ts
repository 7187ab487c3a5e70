import pg from 'pg';
import { WEBHOOK_EVENTS_CHANNEL } from '../../db/migrations/0002-webhooks.ts';
import type { Deps } from '../../deps.ts';
import { POLL_JITTER, startPollLoop } from '../../lib/poll-loop.ts';
import { createWorkerId } from '../../lib/worker-id.ts';
import { DeliveryPass } from './delivery/delivery-pass.ts';
import { createRuntime, type Runtime } from './delivery/delivery-runtime.ts';
import { Signals } from './delivery/pass-signals.ts';

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

/**
 * Delivers everything due now, in this process, and returns the number of attempts made: fans out queued
 * events, then claims and sends until no delivery is due (retries scheduled for later are left for later).
 * Safe to run from several processes at once.
 */
export async function runDueDeliveries(deps: Deps, options: RunDueDeliveriesOptions = {}): Promise<number> {
  const rt = createRuntime(deps, options.workerId ?? createWorkerId());
  return new DeliveryPass(rt, new Signals(), options.signal).run();
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
    pass: (signal) => new DeliveryPass(rt, signals, signal).run(),
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
      rt.logger.info('webhook worker stopped');
    },
  };
}
