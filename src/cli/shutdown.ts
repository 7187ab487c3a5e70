import type { Logger } from 'pino';

/** Runs `stop` on the first SIGINT/SIGTERM and exits 0 when it completes; a second signal exits at once. */
export function onShutdownSignal(logger: Logger, stop: () => Promise<void>): void {
  let signalled = false;
  const handler = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'shutting down');
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
