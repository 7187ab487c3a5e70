/**
 * Keeps leases alive while work runs: calls `renew` every third of the lease (at least every 100 ms), one call
 * at a time (a tick while the previous renewal is still running is skipped). `renew` returns undefined when
 * there is nothing to renew. A failed renewal goes to `onError`; the lease may then run out and the work be
 * taken over (at-least-once). Shared by the job worker and the webhook delivery worker.
 */
export function startLeaseRenewal(options: {
  leaseMs: number;
  renew: () => Promise<unknown> | undefined;
  onError: (error: unknown) => void;
}): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    const renewal = options.renew();
    if (!renewal) return;
    running = renewal.then(
      () => undefined,
      (error: unknown) => options.onError(error),
    );
    void running.finally(() => {
      running = undefined;
    });
  };
  const timer = setInterval(tick, Math.max(100, Math.floor(options.leaseMs / 3)));
  timer.unref();
  return {
    /** Stops renewing; resolves once a renewal in flight has settled. */
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
