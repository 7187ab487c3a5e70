import path from 'node:path';
import { z } from 'zod';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const seconds = z
  .string()
  .regex(/^\s*\d+(\.\d+)?\s*(,\s*\d+(\.\d+)?\s*)*$/, 'must be comma-separated seconds, e.g. 30,120,480')
  .transform((v) => v.split(',').map((s) => Number(s.trim())));

/** Every environment variable the service reads, validated once at start. Nothing else reads process.env. */
export const ConfigSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^(postgres|postgresql|sqlite):\/\//, 'must start with postgres://, postgresql:// or sqlite://')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  MAX_TRANSCRIPT_BYTES: z.coerce.number().int().min(1024).default(2_097_152),
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: booleanFlag.default(false),
  WEBHOOKS_RETRY_SCHEDULE: seconds.default([30, 120, 480]),
  WORKER: booleanFlag.default(true),
  WORKER_POLL_MS: z.coerce.number().int().min(10).default(500),
  JOB_LEASE_SECONDS: z.coerce.number().int().min(1).default(300),
  JOB_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  JOB_RETRY_BASE_SECONDS: z.coerce.number().min(0).default(5),
});

export type Config = {
  port: number;
  host: string;
  dataDir: string;
  /** `sqlite` (a file under dataDir unless DATABASE_URL names one) or `postgres`. */
  database: { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string };
  logLevel: z.infer<typeof ConfigSchema>['LOG_LEVEL'];
  rateLimitPerMinute: number;
  maxBodyBytes: number;
  maxTranscriptBytes: number;
  webhooks: { allowPrivateTargets: boolean; retryScheduleSeconds: number[] };
  worker: {
    enabled: boolean;
    pollMs: number;
    leaseSeconds: number;
    maxAttempts: number;
    retryBaseSeconds: number;
  };
};

/** Thrown when the environment is invalid; the message lists one line per bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads and validates the configuration from an environment map (process.env by default). */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const defined = Object.fromEntries(
    Object.entries(env).filter(
      ([key, value]) => key in ConfigSchema.shape && value !== undefined && value !== '',
    ),
  );
  const parsed = ConfigSchema.safeParse(defined);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '?');
      return `  ${name}=${JSON.stringify(env[name] ?? '')}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  let database: Config['database'];
  if (e.DATABASE_URL?.startsWith('postgres')) {
    database = { dialect: 'postgres', url: e.DATABASE_URL };
  } else if (e.DATABASE_URL?.startsWith('sqlite://')) {
    database = { dialect: 'sqlite', file: path.resolve(e.DATABASE_URL.slice('sqlite://'.length)) };
  } else {
    database = { dialect: 'sqlite', file: path.join(dataDir, 'minutes.sqlite') };
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    database,
    logLevel: e.LOG_LEVEL,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    maxBodyBytes: e.MAX_BODY_BYTES,
    maxTranscriptBytes: e.MAX_TRANSCRIPT_BYTES,
    webhooks: {
      allowPrivateTargets: e.WEBHOOKS_ALLOW_PRIVATE_TARGETS,
      retryScheduleSeconds: e.WEBHOOKS_RETRY_SCHEDULE,
    },
    worker: {
      enabled: e.WORKER,
      pollMs: e.WORKER_POLL_MS,
      leaseSeconds: e.JOB_LEASE_SECONDS,
      maxAttempts: e.JOB_MAX_ATTEMPTS,
      retryBaseSeconds: e.JOB_RETRY_BASE_SECONDS,
    },
  };
}
