import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/features/api-keys/scopes.ts';
import { useBeforeAll } from '../helpers/before-all.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, type TestResponse, useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import {
  type ApiRoute,
  buildPath,
  loadApiRoutes,
  NOTES_OPERATIONS,
  sampleRequest,
} from '../helpers/routes.ts';

/**
 * One authentication and scope contract, thrown at every operation of the served OpenAPI document
 * (Unkey's runCommonRouteTests): routes added later are covered without editing this file.
 */
const { doc, routes } = await loadApiRoutes();

/** Sends the route's sample request with an arbitrary Authorization header (or none). */
function send(h: Harness, route: ApiRoute, authorization: string | null): Promise<TestResponse> {
  const req = sampleRequest(route, doc);
  return h.request(req.method, req.path, {
    key: null,
    ...(req.body !== undefined ? { body: req.body } : {}),
    headers: authorization === null ? {} : { authorization },
  });
}

function expect401(res: TestResponse, code: string) {
  expectApiError(res, 401, code);
  expect(res.headers.get('www-authenticate') ?? '').toMatch(/^Bearer\b/);
}

const UNKNOWN_SECRET = 'A'.repeat(32);

describe('every route is listed', () => {
  it('finds the routes of the notes API in the served document', () => {
    const names = routes.map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(NOTES_OPERATIONS));
  });
});

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect);
    const tenant = useBeforeAll(() => h.tenant());

    for (const route of routes) {
      describe(route.name, () => {
        it('401 api_key_missing without an Authorization header, with WWW-Authenticate: Bearer', async () => {
          expect401(await send(h, route, null), 'api_key_missing');
        });

        it.each([
          ['a Basic credential', 'Basic dXNlcjpwYXNz'],
          ['"Bearer" without a key', 'Bearer'],
          ['a truncated key', 'Bearer svc_sk_live_short'],
          ['a key with a wrong prefix', `Bearer sk_live_${UNKNOWN_SECRET}`],
          ['a publishable-style prefix', `Bearer svc_pk_live_${UNKNOWN_SECRET}`],
          ['a key with an unknown mode', `Bearer svc_sk_prod_${UNKNOWN_SECRET}`],
          ['a key with characters outside base62', `Bearer svc_sk_live_${'A'.repeat(31)}-`],
          ['two keys', `Bearer svc_sk_live_${UNKNOWN_SECRET} svc_sk_live_${UNKNOWN_SECRET}`],
        ])('401 api_key_invalid for %s', async (_, authorization) => {
          expect401(await send(h, route, authorization), 'api_key_invalid');
        });

        it('401 api_key_invalid for a well-formed key that does not exist (live and test)', async () => {
          expect401(await send(h, route, `Bearer svc_sk_live_${UNKNOWN_SECRET}`), 'api_key_invalid');
          expect401(await send(h, route, `Bearer svc_sk_test_${UNKNOWN_SECRET}`), 'api_key_invalid');
        });

        it('401 api_key_invalid for a real key with one character changed', async () => {
          const last = tenant.liveKey.at(-1) === 'a' ? 'b' : 'a';
          expect401(await send(h, route, `Bearer ${tenant.liveKey.slice(0, -1)}${last}`), 'api_key_invalid');
        });

        it('401 api_key_revoked for a revoked key (live and test)', async () => {
          expect401(await send(h, route, `Bearer ${await tenant.revokedKey('live')}`), 'api_key_revoked');
          expect401(await send(h, route, `Bearer ${await tenant.revokedKey('test')}`), 'api_key_revoked');
        });

        it('401 api_key_expired for an expired key (live and test)', async () => {
          expect401(await send(h, route, `Bearer ${await tenant.expiredKey('live')}`), 'api_key_expired');
          expect401(await send(h, route, `Bearer ${await tenant.expiredKey('test')}`), 'api_key_expired');
        });

        it(`403 insufficient_scope naming '${route.scope}' for a key with every other scope`, async () => {
          const others = SCOPES.filter((s) => s !== route.scope);
          for (const mode of ['live', 'test'] as const) {
            const key = await tenant.keyWithScopes(others, mode);
            const res = await send(h, route, `Bearer ${key}`);
            expectApiError(res, 403, 'insufficient_scope');
            expect(res.body.error.message).toContain(route.scope);
          }
        });

        it('403 comes before input validation and before the id is looked up', async () => {
          const key = await tenant.keyWithScopes(
            SCOPES.filter((s) => s !== route.scope),
            'live',
          );
          // Out-of-range paging and an impossible date, a malformed JSON body, an id that exists nowhere.
          const path = `${buildPath(route)}?page=-1&per_page=1000000000&from=2026-02-30`;
          const res = await h.request(route.method, path, {
            key,
            ...(route.jsonBody
              ? { raw: '{"not": json', headers: { 'content-type': 'application/json' } }
              : {}),
          });
          expectApiError(res, 403, 'insufficient_scope');
          expect(res.body.error.message).toContain(route.scope);
        });

        it(`a key with only '${route.scope}' passes authentication and the scope check`, async () => {
          const key = await tenant.keyWithScopes([route.scope], 'live');
          const req = sampleRequest(route, doc);
          const res = await h.request(req.method, req.path, {
            key,
            ...(req.body !== undefined ? { body: req.body } : {}),
          });
          expect([401, 403], `${res.status} ${res.text.slice(0, 300)}`).not.toContain(res.status);
          expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
          expect(res.headers.get('request-id')).toMatch(/^req_[0-9A-Za-z]{24}$/);
        });
      });
    }
  });
}
