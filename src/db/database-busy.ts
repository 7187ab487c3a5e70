import { AppError } from '../lib/errors.ts';

/**
 * The database is momentarily too busy to take the request: SQLite's write lock held past busy_timeout by another
 * writer (a large note being published, another process), PostgreSQL out of connections or refusing them while
 * it starts. The request changed nothing; the client may retry.
 */
export function isDatabaseBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (typeof code === 'string' && code.startsWith('SQLITE_BUSY')) || code === '53300' || code === '57P03';
}

/** What REST (503 with Retry-After) and MCP (a tool error) answer for it. */
export function databaseBusyError(): AppError {
  return new AppError('unavailable', 'The database is busy. Retry the request in a moment.', {
    headers: { 'Retry-After': '1' },
  });
}
