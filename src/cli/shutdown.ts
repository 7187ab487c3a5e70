import type { Logger } from 'pino';

/**
 * How long a graceful stop may take before the process exits anyway: connections get their drain, the workers
 * their limit, and work still in hand is safe to leave (its job or delivery lease runs out and another worker
 * takes it), so a stop never hangs a deploy or a supervisor.
 */
export const SHUTDOWN_LIMIT_MS = 60_000;

/** What the process logs when the limit ends its stop. */
export const SHUTDOWN_GAVE_UP = 'shutdown did not finish in time; exiting with its work in hand leased';

/**
 * Runs `stop` on the first SIGINT/SIGTERM and exits 0 when it completes, or once `limitMs` has passed (logged);
 * a second signal exits at once.
 */
export function onShutdownSignal(
  logger: Logger,
  stop: () => Promise<void>,
  limitMs = SHUTDOWN_LIMIT_MS,
): void {
  let signalled = false;
  const handler = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.warn({ limit_ms: limitMs }, SHUTDOWN_GAVE_UP);
      process.exit(0);
    }, limitMs).unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

/** One readable line for an unexpected failure (pg's connection errors can have an empty message). */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const message =
      err.message || (err instanceof AggregateError ? err.errors.map(describeError).join('; ') : '');
    return [typeof code === 'string' ? code : undefined, message].filter(Boolean).join(': ') || err.name;
  }
  return String(err);
}
