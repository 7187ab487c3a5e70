import type { Deps } from '../deps.ts';

/** The background work of one process: note processing jobs, webhook deliveries and the retention sweep. */
export interface BackgroundWorkers {
  /** Looks for work now (call after enqueueing a job or writing an event). */
  wake(): void;
  /** Stops both loops; resolves once the work in hand has been recorded. */
  stop(): Promise<void>;
}

/**
 * Starts the job worker and the webhook delivery worker in this process. Loaded lazily by `serve` and
 * `worker`, so an API-only node never loads the processing and delivery code.
 */
export async function startBackgroundWorkers(deps: Deps): Promise<BackgroundWorkers> {
  const [{ startWorker }, { startWebhookWorker }, { startRetentionSweeper }] = await Promise.all([
    import('../jobs/worker.ts'),
    import('../features/webhooks/webhook-worker.ts'),
    import('../features/retention/retention-sweeper.ts'),
  ]);
  const jobs = startWorker(deps);
  const webhooks = startWebhookWorker(deps);
  const retention = startRetentionSweeper(deps);
  return {
    wake() {
      jobs.wake();
      webhooks.wake();
    },
    async stop() {
      await Promise.all([jobs.stop(), webhooks.stop(), retention.stop()]);
    },
  };
}
