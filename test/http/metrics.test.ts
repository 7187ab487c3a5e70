import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';

const TOKEN = 'metrics-token-0123456789';

/** The value of one series in Prometheus text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (wanted.every((l) => line.includes(l))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

for (const dialect of DIALECTS) {
  describe(`GET /metrics (${dialect})`, () => {
    const h = useHarness(dialect, { METRICS_ENABLED: 'true', METRICS_TOKEN: TOKEN });

    it('needs the bearer token when METRICS_TOKEN is set', async () => {
      const none = await h.request('GET', '/metrics', { key: null });
      expect(none.status).toBe(401);
      expect(none.body.error.code).toBe('api_key_missing');
      const wrong = await h.request('GET', '/metrics', { key: 'metrics-token-wrong-wrong' });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('api_key_invalid');
    });

    it('counts requests by route template and status, with latency histograms, jobs, deliveries and queues', async () => {
      const t = await h.tenant();
      await h.request('GET', '/v1/notes', { key: t.liveKey });
      const note = await h.request('POST', '/v1/notes', {
        key: t.liveKey,
        body: { transcript: 'Maya: We ship on Friday.\nLeo: I will write the release notes.' },
      });
      await h.request('GET', `/v1/notes/${note.body.id}`, { key: t.liveKey });
      await h.request('GET', '/v1/notes/note_doesnotexist000000000000', { key: t.liveKey });

      const res = await h.app.request('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      expect(
        sample(text, 'minutes_http_requests_total', { method: 'GET', route: '/v1/notes', status: '200' }),
      ).toBeGreaterThanOrEqual(1);
      expect(
        sample(text, 'minutes_http_requests_total', { method: 'GET', route: '/v1/notes/:id', status: '404' }),
      ).toBeGreaterThanOrEqual(1);
      expect(
        sample(text, 'minutes_http_request_duration_seconds_count', {
          method: 'POST',
          route: '/v1/notes',
          status: '202',
        }),
      ).toBeGreaterThanOrEqual(1);
      expect(text).toMatch(
        /minutes_http_request_duration_seconds_bucket\{le="0.1",method="GET",route="\/v1\/notes",status="200"\} \d+/,
      );
      // The note's processing job waits (no worker in this harness).
      expect(sample(text, 'minutes_jobs', { state: 'queued' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'minutes_webhook_deliveries', { state: 'pending' })).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'minutes_queue_depth', { queue: 'jobs' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'minutes_queue_depth', { queue: 'events' })).toBeGreaterThanOrEqual(0);
      expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
      // No series per unknown path: a scanner's requests are one label value.
      expect(text).not.toContain('route="/v1/notes/note_doesnotexist');
    });
  });
}

describe('GET /metrics when not enabled', () => {
  const h = useHarness('sqlite');
  it('is an unknown route like any other', async () => {
    const res = await h.request('GET', '/metrics', { key: null });
    expect(res.status).toBe(401);
    const t = await h.tenant();
    expect((await h.request('GET', '/metrics', { key: t.liveKey })).status).toBe(404);
  });
});
