import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { useServedApp } from '../helpers/serve.ts';
import { REDIRECT_URI } from './oauth-client.ts';

for (const dialect of DIALECTS) {
  describe(`OAuth for MCP clients: registration and token endpoints are rate-limited per address (${dialect})`, () => {
    const h = useHarness(dialect, { RATE_LIMIT_PER_MINUTE: '3' });
    const port = useServedApp(h);

    it('the fourth registration in a minute gets 429 in the OAuth error format with Retry-After', async () => {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 4; i++) {
        last = await fetch(`http://127.0.0.1:${port()}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_name: 'Flood',
            redirect_uris: [REDIRECT_URI],
            token_endpoint_auth_method: 'none',
          }),
        });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([201, 201, 201, 429]);
      expect(last!.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await last!.json()) as any).error).toBe('temporarily_unavailable');
      const token = await fetch(`http://127.0.0.1:${port()}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=refresh_token&refresh_token=x&client_id=y',
      });
      expect(token.status).toBe(429);
    });
  });
}
