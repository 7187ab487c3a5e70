import pino, { type Logger } from 'pino';
import type { Config } from '../config.ts';

/** JSON logs on stdout; secrets that could reach a log line are redacted by path. */
export function createLogger(level: Config['logLevel']): Logger {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: ['req.headers.authorization', '*.secret', '*.key', 'key', 'secret'],
      censor: '[redacted]',
    },
  });
}
