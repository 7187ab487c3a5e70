import fs from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import './lib/zod-messages.ts';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const seconds = z
  .string()
  .regex(/^\s*\d+(\.\d+)?\s*(,\s*\d+(\.\d+)?\s*)*$/, 'must be comma-separated seconds, e.g. 30,120,480')
  .transform((v) => v.split(',').map((s) => Number(s.trim())));

/** Comma-separated web origins (`http(s)://host[:port]`), normalised; blank entries are ignored. */
const origins = z.string().transform((v, ctx) => {
  const out: string[] = [];
  for (const raw of v.split(',')) {
    if (!raw.trim()) continue;
    const url = URL.canParse(raw.trim()) ? new URL(raw.trim()) : undefined;
    const bare = url && url.pathname === '/' && !url.search && !url.hash && !url.username;
    if (!url || !bare || !/^https?:$/.test(url.protocol)) {
      ctx.addIssue({
        code: 'custom',
        message: `'${raw.trim()}' is not an origin such as https://app.example.com or http://localhost:6274`,
      });
      return z.NEVER;
    }
    out.push(url.origin);
  }
  return out;
});

/** An http(s) base URL such as https://api.openai.com/v1 or http://localhost:11434/v1, without a trailing slash. */
const httpUrl = z
  .string()
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'must be an http(s) URL')
  .transform((v) => v.replace(/\/+$/, ''));

/** Every environment variable the service reads, validated once at start. Nothing else reads process.env. */
export const ConfigSchema = z.object({
  // Read before the others, from the real environment only: the settings file (loadEnvFile); `none` reads none.
  ENV_FILE: z.string().min(1).default('.env'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  PUBLIC_URL: httpUrl.optional(),
  HOST: z.string().min(1).default('0.0.0.0'),
  TRUST_PROXY: booleanFlag.default(false),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^(postgres|postgresql|sqlite):\/\//, 'must start with postgres://, postgresql:// or sqlite://')
    .optional(),
  METRICS_ENABLED: booleanFlag.default(false),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  MAX_TRANSCRIPT_BYTES: z.coerce.number().int().min(1024).default(2_097_152),
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: booleanFlag.default(false),
  WEBHOOKS_RETRY_SCHEDULE: seconds.default([30, 120, 480]),
  WEBHOOKS_SECRET_OVERLAP_SECONDS: z.coerce.number().int().min(0).max(2_592_000).default(86_400),
  WEBHOOKS_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  WEBHOOKS_ALLOW_HOSTS: z
    .string()
    .regex(/^[\sA-Za-z0-9_.*:/,-]*$/, 'must be comma-separated host names, IP addresses or CIDR ranges')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .default([]),
  WEBHOOKS_POLL_MS: z.coerce.number().int().min(10).default(200),
  WEBHOOKS_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),
  WEBHOOKS_CONCURRENCY_PER_ACCOUNT: z.coerce.number().int().min(1).max(1000).default(8),
  WEBHOOKS_LEASE_SECONDS: z.coerce.number().int().min(1).default(15),
  WEBHOOKS_MAX_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(20),
  WORKER: booleanFlag.default(true),
  WORKER_POLL_MS: z.coerce.number().int().min(10).default(500),
  // Jobs a worker process runs at once (0: one more than the CPU cores, at most four).
  JOB_CONCURRENCY: z.coerce.number().int().min(0).max(64).default(0),
  JOB_LEASE_SECONDS: z.coerce.number().int().min(1).default(30),
  JOB_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  JOB_RETRY_BASE_SECONDS: z.coerce.number().min(0).default(5),
  MCP_ALLOWED_ORIGINS: origins.default([]),
  // Recordings and processing (src/features/recordings, src/features/processing).
  MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(500 * 1024 * 1024),
  TRANSCRIBER: z.enum(['none', 'openai']).default('none'),
  TRANSCRIBE_BASE_URL: httpUrl.default('https://api.openai.com/v1'),
  TRANSCRIBE_API_KEY: z.string().optional(),
  TRANSCRIBE_MODEL: z.string().min(1).default('whisper-1'),
  TRANSCRIBE_TIMEOUT_MS: z.coerce.number().int().min(1000).default(600_000),
  // Worker threads for analysis and chunking (0: one fewer than the CPU cores, at least 1); parsing has one more.
  PROCESSING_THREADS: z.coerce.number().int().min(0).max(64).default(0),
  ANALYSIS_TIMEOUT_MS: z.coerce.number().int().min(1).default(60_000),
  ANALYZER: z.enum(['builtin', 'openai']).default('builtin'),
  ANALYZE_BASE_URL: httpUrl.default('https://api.openai.com/v1'),
  ANALYZE_API_KEY: z.string().optional(),
  ANALYZE_MODEL: z.string().min(1).default('gpt-4o-mini'),
  ANALYZE_TIMEOUT_MS: z.coerce.number().int().min(1000).default(120_000),
  // The model's context window (prompt and answer together); longer transcripts are analysed in parts.
  ANALYZE_CONTEXT_TOKENS: z.coerce.number().int().min(2048).max(10_000_000).default(8192),
  // Search (src/features/search): which embedder builds the vector index.
  // `builtin`: all-MiniLM-L6-v2 shipped in an npm package (the default); `glove`: the smaller GloVe average.
  EMBEDDER: z.enum(['builtin', 'glove', 'transformers', 'openai']).default('builtin'),
  EMBEDDER_PRECISION: z.enum(['int8', 'fp32']).default('int8'),
  EMBEDDER_MODEL: z.string().min(1).optional(),
  EMBEDDER_BASE_URL: httpUrl.default('https://api.openai.com/v1'),
  EMBEDDER_API_KEY: z.string().optional(),
  EMBEDDER_DIMENSIONS: z.coerce.number().int().min(1).max(8192).optional(),
  EMBEDDER_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  MODELS_DIR: z.string().min(1).optional(),
  // Search: an optional cross-encoder that re-scores the best notes' passages (src/features/search/reranker.ts).
  RERANKER: z.enum(['none', 'cohere']).default('none'),
  RERANKER_BASE_URL: httpUrl.default('https://api.cohere.com/v2'),
  RERANKER_API_KEY: z.string().optional(),
  RERANKER_MODEL: z.string().min(1).default('rerank-v3.5'),
  RERANKER_SCORES: z.enum(['probability', 'logit']).default('probability'),
  RERANKER_CANDIDATES: z.coerce.number().int().min(1).max(100).default(20),
  RERANKER_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  // Retention (src/features/retention): how long copies kept for replay and audit live.
  RETENTION_EVENTS_DAYS: z.coerce.number().min(1).default(30),
  RETENTION_DELIVERIES_DAYS: z.coerce.number().min(1).default(30),
  RETENTION_IDEMPOTENCY_HOURS: z.coerce.number().min(1).default(24),
});

export type Config = {
  port: number;
  host: string;
  /** The URL clients reach this server at (PUBLIC_URL), e.g. behind a proxy: the OpenAPI `servers` entry and the
   * dashboard's printed set-up links. Unset: http://localhost:PORT. */
  publicUrl?: string;
  /** TRUST_PROXY: the client address of a request is the last X-Forwarded-For entry (the proxy's view), not the
   * socket's; only behind a proxy that sets it. */
  trustProxy: boolean;
  dataDir: string;
  /** `sqlite` (a file under dataDir unless DATABASE_URL names one) or `postgres`. */
  database: { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string };
  logLevel: z.infer<typeof ConfigSchema>['LOG_LEVEL'];
  /** GET /metrics (Prometheus text); off unless METRICS_ENABLED, bearer METRICS_TOKEN required when set. */
  metrics: { enabled: boolean; token?: string };
  rateLimitPerMinute: number;
  maxBodyBytes: number;
  maxTranscriptBytes: number;
  webhooks: {
    allowPrivateTargets: boolean;
    retryScheduleSeconds: number[];
    /** Webhooks one account may have in each mode (live, test); creating one more is a 409. */
    maxPerAccount: number;
    /** How long a rotated-out secret keeps signing (WEBHOOKS_SECRET_OVERLAP_SECONDS). */
    secretOverlapSeconds: number;
  };
  /** How the webhook worker delivers (src/features/webhooks). */
  webhookDelivery: {
    /** Per attempt, from DNS lookup to the last byte of the response. */
    timeoutMs: number;
    /** Host names, IPs and CIDR ranges exempt from the private-address check (WEBHOOKS_ALLOW_HOSTS). */
    allowHosts: string[];
    pollMs: number;
    /** Attempts in flight at once per worker process. */
    concurrency: number;
    /**
     * Attempts in flight at once per worker process for one account and mode (never more than `concurrency`):
     * one account's slow or dead receivers cannot take every slot.
     */
    concurrencyPerAccount: number;
    /**
     * A claimed delivery is taken for abandoned after this unless its worker renews the lease (every third of
     * it, while the attempt runs): how soon a killed worker's deliveries are sent by another.
     */
    leaseSeconds: number;
  };
  worker: {
    enabled: boolean;
    pollMs: number;
    /** Jobs run at once per worker process: a note's processing mostly waits on threads, so several overlap. */
    concurrency: number;
    leaseSeconds: number;
    maxAttempts: number;
    retryBaseSeconds: number;
  };
  /** Browser origins allowed to call /mcp; requests without an Origin header (non-browser clients) always pass. */
  mcp: { allowedOrigins: string[] };
  /** Largest accepted audio upload (POST /v1/recordings, multipart). */
  maxUploadBytes: number;
  /** The worker threads that parse, analyze and chunk transcripts off the event loop (processing-pool.ts). */
  processing: ProcessingSettings;
  /** Speech to text; `none` stores audio and fails its note with a reason saying so. */
  transcription: { provider: 'none' } | ({ provider: 'openai' } & OpenAiEndpoint);
  /** Summary, title, action items and highlights; `openai` falls back to `builtin` on bad output. */
  analysis: { provider: 'builtin' } | ({ provider: 'openai'; contextTokens: number } & OpenAiEndpoint);
  /** Embedder of the search index; `builtin` (all-MiniLM-L6-v2) and `glove` need no download. */
  search: {
    embedder:
      | { provider: 'builtin'; precision: 'int8' | 'fp32' }
      | { provider: 'glove' }
      | { provider: 'transformers'; model: string }
      | ({ provider: 'openai'; dimensions?: number } & OpenAiEndpoint);
    /** Where downloaded models, the built ONNX model and GloVe's cache live (MODELS_DIR, default DATA_DIR/models). */
    modelsDir: string;
    /** Re-scores the fused ranking's best notes with a cross-encoder; none by default. */
    reranker?: RerankerSettings;
    /**
     * Bytes of note vectors the exact vector store (no sqlite-vec / pgvector) keeps in memory between searches,
     * all spaces of one database together (256 MB; not an environment setting).
     */
    exactCacheBytes: number;
  };
  /** How long outbox events, finished deliveries (with their attempt log) and idempotency keys are kept. */
  retention: { eventsMs: number; deliveriesMs: number; idempotencyMs: number };
};

export interface ProcessingSettings {
  /** Threads of the pool. */
  threads: number;
  /** Wall-clock budget of one note's analysis and chunking: a thread over it is stopped, the attempt fails. */
  timeoutMs: number;
}

/** Any OpenAI-compatible HTTP API (OpenAI, Groq, Ollama, vLLM, whisper servers). */
export interface OpenAiEndpoint {
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
}

/** Settings of a Cohere-compatible rerank endpoint (RERANKER=cohere). */
export type RerankerSettings = OpenAiEndpoint & {
  /** Notes of the fused ranking whose passages are sent to the reranker, per search. */
  candidates: number;
  /** What the endpoint's `relevance_score` is: a probability in [0, 1], or a raw logit to pass through the logistic function. */
  scores: 'probability' | 'logit';
};

/** Thrown when the environment is invalid; the message lists one line per bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Where each setting's value came from, for messages that must say which database a command opened. */
export type SettingSource = 'environment' | 'file' | 'default';

export interface LoadedEnvFile {
  /** The absolute path of the file read. */
  file: string;
  /** The settings it supplied (those the real environment did not already set). */
  applied: string[];
}

let envFile: LoadedEnvFile | undefined;

/**
 * Reads the settings file (`.env` in the working directory, or ENV_FILE; `ENV_FILE=none` reads none) into `env`
 * for the settings `env` does not already have: the real environment wins over the file, the file over the
 * defaults. A missing file is no error. Called once at the start of the server and of every CLI command, before
 * loadConfig, so both find the same database.
 */
export function loadEnvFile(
  env: Record<string, string | undefined> = process.env,
): LoadedEnvFile | undefined {
  const name = env.ENV_FILE || '.env';
  if (name === 'none') return undefined;
  const file = path.resolve(name);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !env.ENV_FILE) return undefined;
    throw new ConfigError(`Cannot read the settings file ${file} (ENV_FILE): ${(err as Error).message}`);
  }
  const applied: string[] = [];
  for (const [key, value] of Object.entries(parseEnv(text))) {
    if (env[key] !== undefined) continue;
    env[key] = value;
    applied.push(key);
  }
  if (env === process.env) envFile = { file, applied };
  return { file, applied };
}

/** Where a setting of this process came from: the real environment, the settings file, or its default. */
export function settingSource(name: keyof typeof ConfigSchema.shape): {
  source: SettingSource;
  file?: string;
} {
  if (envFile?.applied.includes(name)) return { source: 'file', file: envFile.file };
  return process.env[name] ? { source: 'environment' } : { source: 'default' };
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
    ...(e.PUBLIC_URL ? { publicUrl: e.PUBLIC_URL } : {}),
    trustProxy: e.TRUST_PROXY,
    dataDir,
    database,
    logLevel: e.LOG_LEVEL,
    metrics: { enabled: e.METRICS_ENABLED, ...(e.METRICS_TOKEN ? { token: e.METRICS_TOKEN } : {}) },
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    maxBodyBytes: e.MAX_BODY_BYTES,
    maxTranscriptBytes: e.MAX_TRANSCRIPT_BYTES,
    webhooks: {
      allowPrivateTargets: e.WEBHOOKS_ALLOW_PRIVATE_TARGETS,
      retryScheduleSeconds: e.WEBHOOKS_RETRY_SCHEDULE,
      maxPerAccount: e.WEBHOOKS_MAX_PER_ACCOUNT,
      secretOverlapSeconds: e.WEBHOOKS_SECRET_OVERLAP_SECONDS,
    },
    webhookDelivery: {
      timeoutMs: e.WEBHOOKS_TIMEOUT_MS,
      allowHosts: e.WEBHOOKS_ALLOW_HOSTS,
      pollMs: e.WEBHOOKS_POLL_MS,
      concurrency: e.WEBHOOKS_CONCURRENCY,
      concurrencyPerAccount: Math.min(e.WEBHOOKS_CONCURRENCY_PER_ACCOUNT, e.WEBHOOKS_CONCURRENCY),
      leaseSeconds: e.WEBHOOKS_LEASE_SECONDS,
    },
    worker: {
      enabled: e.WORKER,
      pollMs: e.WORKER_POLL_MS,
      // One lane more than the cores: a job spends part of its time in the database and waiting on threads.
      concurrency: e.JOB_CONCURRENCY || Math.min(4, availableParallelism() + 1),
      leaseSeconds: e.JOB_LEASE_SECONDS,
      maxAttempts: e.JOB_MAX_ATTEMPTS,
      retryBaseSeconds: e.JOB_RETRY_BASE_SECONDS,
    },
    mcp: { allowedOrigins: e.MCP_ALLOWED_ORIGINS },
    maxUploadBytes: e.MAX_UPLOAD_BYTES,
    processing: {
      threads: e.PROCESSING_THREADS || Math.max(1, availableParallelism() - 1),
      timeoutMs: e.ANALYSIS_TIMEOUT_MS,
    },
    transcription:
      e.TRANSCRIBER === 'openai'
        ? {
            provider: 'openai',
            baseUrl: e.TRANSCRIBE_BASE_URL,
            model: e.TRANSCRIBE_MODEL,
            timeoutMs: e.TRANSCRIBE_TIMEOUT_MS,
            ...(e.TRANSCRIBE_API_KEY ? { apiKey: e.TRANSCRIBE_API_KEY } : {}),
          }
        : { provider: 'none' },
    analysis:
      e.ANALYZER === 'openai'
        ? {
            provider: 'openai',
            baseUrl: e.ANALYZE_BASE_URL,
            model: e.ANALYZE_MODEL,
            timeoutMs: e.ANALYZE_TIMEOUT_MS,
            contextTokens: e.ANALYZE_CONTEXT_TOKENS,
            ...(e.ANALYZE_API_KEY ? { apiKey: e.ANALYZE_API_KEY } : {}),
          }
        : { provider: 'builtin' },
    search: {
      embedder:
        e.EMBEDDER === 'openai'
          ? {
              provider: 'openai',
              baseUrl: e.EMBEDDER_BASE_URL,
              model: e.EMBEDDER_MODEL ?? 'text-embedding-3-small',
              timeoutMs: e.EMBEDDER_TIMEOUT_MS,
              ...(e.EMBEDDER_API_KEY ? { apiKey: e.EMBEDDER_API_KEY } : {}),
              ...(e.EMBEDDER_DIMENSIONS ? { dimensions: e.EMBEDDER_DIMENSIONS } : {}),
            }
          : e.EMBEDDER === 'transformers'
            ? { provider: 'transformers', model: e.EMBEDDER_MODEL ?? 'Xenova/bge-small-en-v1.5' }
            : e.EMBEDDER === 'glove'
              ? { provider: 'glove' }
              : { provider: 'builtin', precision: e.EMBEDDER_PRECISION },
      modelsDir: path.resolve(e.MODELS_DIR ?? path.join(dataDir, 'models')),
      exactCacheBytes: 256 * 1024 * 1024,
      ...(e.RERANKER === 'cohere'
        ? {
            reranker: {
              baseUrl: e.RERANKER_BASE_URL,
              model: e.RERANKER_MODEL,
              timeoutMs: e.RERANKER_TIMEOUT_MS,
              candidates: e.RERANKER_CANDIDATES,
              scores: e.RERANKER_SCORES,
              ...(e.RERANKER_API_KEY ? { apiKey: e.RERANKER_API_KEY } : {}),
            },
          }
        : {}),
    },
    retention: {
      eventsMs: e.RETENTION_EVENTS_DAYS * 86_400_000,
      deliveriesMs: e.RETENTION_DELIVERIES_DAYS * 86_400_000,
      idempotencyMs: e.RETENTION_IDEMPOTENCY_HOURS * 3_600_000,
    },
  };
}
