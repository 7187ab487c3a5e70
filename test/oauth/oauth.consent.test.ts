import { describe, expect, it } from 'vitest';
import { listConnections } from '../../src/features/oauth/oauth.connections.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { useServedApp } from '../helpers/serve.ts';
import { type BrowserLike, openConsent, registerClient } from './oauth-client.ts';

for (const dialect of DIALECTS) {
  describe(`OAuth consent page: CSRF for every content type (${dialect})`, () => {
    const h = useHarness(dialect);
    const port = useServedApp(h);
    const base = () => `http://127.0.0.1:${port()}`;

    async function multipartPost(browser: BrowserLike, path: string, fields: [string, string][]) {
      const body = new FormData();
      for (const [k, v] of fields) body.append(k, v);
      const res = await fetch(new URL(path, base()), {
        method: 'POST',
        body,
        redirect: 'manual',
        headers: {
          origin: base(),
          cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        },
      });
      return res.status;
    }

    it('a multipart post without the CSRF token is refused and grants nothing; with it, it is accepted', async () => {
      const { t, browser, consentPath } = await openConsent(h, base(), await registerClient(base()));
      const page = await browser.get(consentPath);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
      const allow: [string, string][] = [
        ['decision', 'allow'],
        ['scope', 'notes:read'],
        ['mode', 'live'],
      ];
      expect(await multipartPost(browser, consentPath, allow)).toBe(403);
      expect(await multipartPost(browser, consentPath, [['_csrf', 'wrong'], ...allow])).toBe(403);
      expect(await listConnections(h.deps.db, t.accountId)).toEqual([]);
      expect(await multipartPost(browser, consentPath, [['_csrf', csrf], ...allow])).toBe(303);
      expect(await listConnections(h.deps.db, t.accountId)).toHaveLength(1);
    });
  });
}
