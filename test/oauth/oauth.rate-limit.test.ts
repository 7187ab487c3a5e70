import { request } from 'node:http';
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

/** A token request sent from a given loopback address (so one test can be several clients' machines). */
function tokenFrom(port: number, localAddress: string, form: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        localAddress,
        method: 'POST',
        path: '/oauth/token',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(form),
        },
      },
      (res) => {
        res.resume();
        res.on('error', reject);
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(form);
  });
}

for (const dialect of DIALECTS) {
  describe(`OAuth token endpoint: rate-limited per client too (${dialect})`, () => {
    const h = useHarness(dialect, { RATE_LIMIT_PER_MINUTE: '3' });
    const port = useServedApp(h);

    it('one client spread over addresses gets 429 at its fourth token request; another client does not', async () => {
      const form = (clientId: string) => `grant_type=refresh_token&refresh_token=x&client_id=${clientId}`;
      const statuses: number[] = [];
      for (const address of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5']) {
        statuses.push(await tokenFrom(port(), address, form(`spread-${dialect}`)));
      }
      expect(statuses.slice(0, 3).every((s) => s !== 429)).toBe(true);
      expect(statuses[3]).toBe(429);
      expect(await tokenFrom(port(), '127.0.0.6', form(`other-${dialect}`))).not.toBe(429);
    });

    it('a token request without a sized body is refused before it is read', async () => {
      const res = await fetch(`http://127.0.0.1:${port()}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `client_id=x&pad=${'a'.repeat(20_000)}`,
      });
      expect(res.status).toBe(413);
      expect(((await res.json()) as any).error).toBe('invalid_request');
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`OAuth endpoints behind a trusted proxy: the forwarded address is counted (${dialect})`, () => {
    const h = useHarness(dialect, { RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: 'true' });
    const port = useServedApp(h);

    const registerFrom = (forwardedFor: string) =>
      fetch(`http://127.0.0.1:${port()}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        body: JSON.stringify({
          client_name: 'Behind a proxy',
          redirect_uris: [REDIRECT_URI],
          token_endpoint_auth_method: 'none',
        }),
      });

    it('each forwarded address has its own budget; a spoofed first entry does not buy another one', async () => {
      const a = [await registerFrom('203.0.113.1'), await registerFrom('203.0.113.1')];
      expect(a.map((r) => r.status)).toEqual([201, 201]);
      // The proxy appends the real peer last: what the client wrote before it is not its address.
      const spoofed = await registerFrom('198.51.100.7, 203.0.113.1');
      expect(spoofed.status).toBe(429);
      expect(((await spoofed.json()) as any).error).toBe('temporarily_unavailable');
      expect((await registerFrom('203.0.113.2')).status).toBe(201);
    });

    it('reading a registration (RFC 7592) counts against the client it names, from any address', async () => {
      const reg = await registerFrom('203.0.113.50');
      const { client_id: clientId, registration_access_token: rat } = (await reg.json()) as any;
      const read = (forwardedFor: string) =>
        fetch(`http://127.0.0.1:${port()}/oauth/register/${encodeURIComponent(clientId)}`, {
          headers: { authorization: `Bearer ${rat}`, 'x-forwarded-for': forwardedFor },
        });
      expect((await read('203.0.113.51')).status).toBe(200);
      expect((await read('203.0.113.52')).status).toBe(200);
      const third = await read('203.0.113.53');
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
    });
  });
}
