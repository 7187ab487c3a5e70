import { createHash, timingSafeEqual } from 'node:crypto';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { routePath } from 'hono/route';
import { sql } from 'kysely';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Deps } from '../deps.ts';
import { AppError } from '../lib/errors.ts';
import type { AppEnv } from './context.ts';
import { errorResponse } from './errors.ts';

/** Latency buckets (seconds): API answers are mostly milliseconds; uploads and searches can take seconds. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Constant-time comparison of a presented token with the configured one (hashed first: equal lengths). */
function tokenMatches(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Counts by status of one table, read when Prometheus scrapes. */
async function countByStatus(deps: Deps, table: 'jobs' | 'deliveries'): Promise<Map<string, number>> {
  const { rows } = await sql<{ status: string; n: number | string }>`
    SELECT status, COUNT(*) AS n FROM ${sql.table(table)} GROUP BY status`.execute(deps.db);
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

/** A gauge of a table's rows by status; every known state is reported, 0 when it has no rows. */
function statusGauge(
  deps: Deps,
  registry: Registry,
  gauge: { name: string; help: string; table: 'jobs' | 'deliveries'; states: readonly string[] },
): void {
  new Gauge({
    name: gauge.name,
    help: gauge.help,
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const counts = await countByStatus(deps, gauge.table);
      for (const state of new Set([...gauge.states, ...counts.keys()]))
        this.set({ state }, counts.get(state) ?? 0);
    },
  });
}

/** Route templates matched by apps mounted inside this one (the dashboard), by request. */
const routeLabels = new WeakMap<Request, string>();

/** Records the route template a mounted app matched for this request, for the `route` label. */
export function labelRoute(request: Request, template: string): void {
  routeLabels.set(request, template);
}

/**
 * `GET /metrics` in the Prometheus text format, when METRICS_ENABLED: requests by route template and status with
 * latency histograms, jobs and webhook deliveries by state, queue depths, and the process's default metrics
 * (event-loop lag, memory, CPU, handles). The table counts are read at scrape time, so every process (server or
 * worker) reports the same numbers for the whole deployment; scrape one. With METRICS_TOKEN, a bearer token is
 * required. Off by default: nothing is registered, and /metrics is an unknown route like any other.
 */
export function mountMetrics(app: OpenAPIHono<AppEnv>, deps: Deps): void {
  const { enabled, token } = deps.config.metrics;
  if (!enabled) return;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'minutes_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'minutes_http_request_duration_seconds',
    help: 'Time to answer an HTTP request (until the handler returns), by method, route template and status.',
    labelNames,
    buckets: BUCKETS,
    registers: [registry],
  });

  statusGauge(deps, registry, {
    name: 'minutes_jobs',
    help: 'Background jobs (processing) by state.',
    table: 'jobs',
    states: ['queued', 'running', 'done', 'failed'],
  });
  statusGauge(deps, registry, {
    name: 'minutes_webhook_deliveries',
    help: 'Webhook deliveries by state.',
    table: 'deliveries',
    states: ['pending', 'succeeded', 'failed', 'cancelled'],
  });
  new Gauge({
    name: 'minutes_queue_depth',
    help: 'Work waiting now: jobs due to run, deliveries due to be attempted, events not yet fanned out to webhooks.',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      const now = new Date().toISOString();
      const { rows } = await sql<{ queue: string; n: number | string }>`
        SELECT 'jobs' AS queue, COUNT(*) AS n FROM jobs WHERE status = 'queued' AND run_at <= ${now}
        UNION ALL
        SELECT 'deliveries', COUNT(*) FROM deliveries
          WHERE status = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= ${now})
        UNION ALL
        SELECT 'events', COUNT(*) FROM webhook_event_queue`.execute(deps.db);
      for (const r of rows) this.set({ queue: r.queue }, Number(r.n));
    },
  });

  app.use('*', async (c, next) => {
    const started = process.hrtime.bigint();
    await next();
    // A request the dashboard app answered carries the template it matched there (labelRoute).
    const template = routeLabels.get(c.req.raw) ?? routePath(c, -1);
    // Unmatched paths are one series, not one per path a scanner tries.
    const route = template.endsWith('*') ? '(unmatched)' : template;
    const labels = { method: c.req.method, route, status: String(c.res.status) };
    requests.inc(labels);
    duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
  });

  app.get('/metrics', async (c) => {
    if (token) {
      const header = c.req.header('authorization') ?? '';
      const presented = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
      if (!presented) {
        return errorResponse(
          c,
          new AppError('api_key_missing', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.'),
        );
      }
      if (!tokenMatches(presented, token)) {
        return errorResponse(
          c,
          new AppError('api_key_invalid', 'That is not the METRICS_TOKEN of this server.'),
        );
      }
    }
    c.header('Content-Type', registry.contentType);
    c.header('Cache-Control', 'no-store');
    return c.body(await registry.metrics());
  });
}
