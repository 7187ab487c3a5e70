import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/features/api-keys/scopes.ts';
import { useBeforeAll } from '../helpers/before-all.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type TestResponse, useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { buildPath, type HttpMethod, loadApiRoutes } from '../helpers/routes.ts';

/** Unknown routes, wrong methods and the Request-Id every response carries. */
const { routes } = await loadApiRoutes();
const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Each documented path with the methods it has. */
const paths = [...new Set(routes.map((r) => r.path))].map((path) => ({
  path,
  route: routes.find((r) => r.path === path)!,
  methods: routes.filter((r) => r.path === path).map((r) => r.method),
}));

const REQUEST_ID = /^req_[0-9A-Za-z]{24}$/;

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect);
    const t = useBeforeAll(() => h.tenant());

    describe('unknown routes', () => {
      it.each([
        ['GET', '/v1/nope'],
        ['POST', '/v1/nope'],
        ['GET', '/v1/notes/note_x/comments'],
        ['GET', '/v2/notes'],
        ['GET', '/nope'],
        ['DELETE', '/nope'],
        ['GET', '/v1'],
      ])('%s %s with a valid key → 404 route_not_found as JSON', async (method, path) => {
        const res = await h.request(method, path, { key: t.liveKey });
        expectApiError(res, 404, 'route_not_found');
      });

      it('an unknown route under /v1 without a key is a 401: authentication comes first', async () => {
        const res = await h.request('GET', '/v1/nope');
        expectApiError(res, 401, 'api_key_missing');
      });

      it('an unknown route outside /v1 is 401 without a valid key, then 404 (auth comes first)', async () => {
        expectApiError(await h.request('GET', '/favicon.ico'), 401, 'api_key_missing');
        expectApiError(
          await h.request('GET', '/favicon.ico', { key: 'svc_sk_live_nope' }),
          401,
          'api_key_invalid',
        );
        expectApiError(await h.request('GET', '/favicon.ico', { key: t.liveKey }), 404, 'route_not_found');
        // The public endpoints answer without a key; a wrong method on them is a 405 without one too.
        expect((await h.request('GET', '/healthz')).status).toBe(200);
        expectApiError(await h.request('POST', '/healthz'), 405, 'method_not_allowed');
      });
    });

    describe.each(paths.map((p) => [p.path, p] as const))('%s', (_, p) => {
      const others = METHODS.filter((m) => !p.methods.includes(m));
      const expectedAllow = [...p.methods, ...(p.methods.includes('GET') ? ['HEAD'] : [])].sort();

      it.each(others.map((m) => [m]))('%s → 405 method_not_allowed with Allow', async (method) => {
        const res = await h.request(method, buildPath(p.route), { key: t.liveKey });
        expectApiError(res, 405, 'method_not_allowed');
        const allow = (res.headers.get('allow') ?? '').split(',').map((s) => s.trim());
        expect(allow.sort()).toEqual(expectedAllow);
      });

      it.each(others.map((m) => [m]))(
        '%s without a key → 401 (authentication before 405)',
        async (method) => {
          const res = await h.request(method, buildPath(p.route));
          expectApiError(res, 401, 'api_key_missing');
        },
      );

      it.each(p.methods.map((m) => [m]))(
        '%s with a trailing slash is never a 405 whose Allow lists that very method',
        async (method) => {
          const res = await h.request(method, `${buildPath(p.route)}/`, { key: t.liveKey });
          expect(res.status, res.text).toBeLessThan(500);
          if (res.status === 405) {
            expect((res.headers.get('allow') ?? '').split(',').map((s) => s.trim())).not.toContain(method);
          }
        },
      );

      it('HEAD, which Allow advertises for GET paths, answers like GET without a body', async () => {
        if (!p.methods.includes('GET')) return;
        const path = buildPath(p.route);
        const get = await h.request('GET', path, { key: t.liveKey });
        const res = await h.app.request(path, {
          method: 'HEAD',
          headers: { authorization: `Bearer ${t.liveKey}` },
        });
        expect(res.status).toBe(get.status);
        expect(await res.text()).toBe('');
        expect(res.headers.get('request-id')).toMatch(REQUEST_ID);
      });

      it('405 comes before the scope check', async () => {
        if (!others.length) return;
        const key = await t.keyWithScopes(SCOPES.filter((s) => s !== p.route.scope));
        const res = await h.request(others[0]!, buildPath(p.route), { key });
        expectApiError(res, 405, 'method_not_allowed');
      });
    });

    describe('Request-Id', () => {
      it('is on every response, success or failure, and unique per request', async () => {
        const created = await h.request('POST', '/v1/notes', {
          key: t.liveKey,
          body: { transcript: 'Alice: hello' },
        });
        const responses: [string, TestResponse][] = [
          ['healthz', await h.request('GET', '/healthz')],
          ['readyz', await h.request('GET', '/readyz')],
          ['openapi', await h.request('GET', '/v1/openapi.json')],
          ['200', await h.request('GET', '/v1/notes', { key: t.liveKey })],
          ['202', created],
          ['400', await h.request('GET', '/v1/notes?per_page=0', { key: t.liveKey })],
          ['401', await h.request('GET', '/v1/notes')],
          ['403', await h.request('GET', '/v1/notes', { key: await t.keyWithScopes(['search']) })],
          ['404 resource', await h.request('GET', '/v1/notes/note_missing', { key: t.liveKey })],
          ['404 route', await h.request('GET', '/v1/missing', { key: t.liveKey })],
          ['404 outside /v1', await h.request('GET', '/missing')],
          ['405', await h.request('PUT', '/v1/notes', { key: t.liveKey })],
          [
            '415',
            await h.request('PATCH', `/v1/notes/${created.body.id}`, {
              key: t.liveKey,
              raw: 'x',
              headers: { 'content-type': 'text/plain' },
            }),
          ],
        ];
        const ids = new Set<string>();
        for (const [name, res] of responses) {
          const id = res.headers.get('request-id');
          expect(id, name).toMatch(REQUEST_ID);
          ids.add(id!);
          if (res.status >= 400) expect(res.body.error.request_id, name).toBe(id);
        }
        expect(ids.size).toBe(responses.length);
      });
    });
  });
}
