import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { useServedApp } from '../helpers/serve.ts';

const PUBLIC_URL = 'https://minutes.example';

/** Every string value of a JSON document that looks like a URL. */
function urlsIn(doc: Record<string, unknown>): string[] {
  return Object.values(doc).filter((v): v is string => typeof v === 'string' && /^https?:\/\//.test(v));
}

for (const dialect of DIALECTS) {
  describe(`OAuth discovery behind PUBLIC_URL (${dialect})`, () => {
    const h = useHarness(dialect, { PUBLIC_URL });
    const port = useServedApp(h);
    const base = () => `http://127.0.0.1:${port()}`;

    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
      it(`${path} names PUBLIC_URL whatever X-Forwarded-Host says, and no unrouted endpoint`, async () => {
        const res = await fetch(`${base()}${path}`, {
          headers: { 'x-forwarded-host': 'attacker.example', 'x-forwarded-proto': 'https' },
        });
        expect(res.status).toBe(200);
        const doc = (await res.json()) as Record<string, unknown>;
        expect(doc.issuer).toBe(PUBLIC_URL);
        expect(urlsIn(doc).length).toBeGreaterThan(4);
        for (const url of urlsIn(doc))
          expect(url === PUBLIC_URL || url.startsWith(`${PUBLIC_URL}/`)).toBe(true);
        expect(doc).not.toHaveProperty('pushed_authorization_request_endpoint');
        expect(doc.response_modes_supported).toEqual(['query']);
      });
    }
  });
}
