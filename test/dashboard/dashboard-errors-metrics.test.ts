import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { DashboardClient, signedInClient } from './dashboard-client.ts';

const TOKEN = 'metrics-token-0123456789';

describe.each(DIALECTS)('dashboard error pages and metrics labels (%s)', (dialect) => {
  const h = useHarness(dialect, { METRICS_ENABLED: 'true', METRICS_TOKEN: TOKEN });

  it('a `next` with a control character falls back to / instead of a 500 after the session was made', async () => {
    const t = await h.tenant();
    const client = await signedInClient(h, t);
    await client.submit('/', '/sign-out', {});
    for (const next of ['/\u0001', '/notes\u007f', '/a\u0000b', '/\r\nSet-Cookie: x=1']) {
      const page = await client.get(`/sign-in?next=${encodeURIComponent(next)}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('\u0001');
      const res = await client.submit('/sign-in', '/sign-in', {
        email: t.email,
        password: 'correct horse battery',
        next,
      });
      expect(res.status).toBe(303);
      expect(res.location).toBe('/');
      await client.submit('/', '/sign-out', {});
    }
  });

  it('a page number beyond any list is a 400 page, not a 500', async () => {
    const t = await h.tenant();
    const client = await signedInClient(h, t);
    const res = await client.get('/action-items?page=99999999999999999');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.text).not.toMatch(/at .*\.ts:\d+/);
    expect(res.text).toContain('page');
    expect((await client.get('/action-items?page=2')).status).toBe(200);
  });

  it('dashboard requests are labelled by their route template in /metrics', async () => {
    const t = await h.tenant();
    const client = await signedInClient(h, t);
    await client.get('/action-items');
    await client.get('/notes/note_doesnotexist000000000000');
    await new DashboardClient(h.app).get('/sign-in');
    const res = await h.app.request('/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
    const text = await res.text();
    expect(text).toMatch(
      /minutes_http_requests_total\{method="GET",route="\/action-items",status="200"\} \d+/,
    );
    expect(text).toMatch(/minutes_http_requests_total\{method="GET",route="\/sign-in",status="200"\} \d+/);
    expect(text).toMatch(/minutes_http_requests_total\{method="POST",route="\/sign-in",status="303"\} \d+/);
    expect(text).toMatch(/minutes_http_requests_total\{method="GET",route="\/notes\/:id",status="303"\} \d+/);
  });
});
