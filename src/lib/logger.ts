import pino, { type Logger } from 'pino';
import type { Config } from '../config.ts';

/** JSON logs on stdout (or another stream); secrets that could reach a log line are redacted by path. */
export function createLogger(level: Config['logLevel'], stream?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    base: undefined,
    redact: {
      paths: ['req.headers.authorization', '*.secret', '*.key', 'key', 'secret'],
      censor: '[redacted]',
    },
  };
  return stream ? pino(options, stream) : pino(options);
}
