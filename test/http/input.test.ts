import { describe, expect, it } from 'vitest';
import { useBeforeAll } from '../helpers/before-all.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { type JsonSchema, loadApiRoutes, resolveRef, sampleRequest } from '../helpers/routes.ts';

/**
 * Input handling shared by every route (API.md "Errors", "General"): each case runs against every operation
 * of the served document that has the input in question, so later routes are held to the same rules.
 */
const { doc, routes } = await loadApiRoutes();
const jsonRoutes = routes.filter((r) => r.jsonBody);
const withQuery = (name: string) => routes.filter((r) => r.queryParams.some((p) => p.name === name));
const withBodyField = (name: string) =>
  jsonRoutes.filter((r) => name in ((resolveRef(doc, r.jsonBody!).properties ?? {}) as object));

/** A value of the wrong JSON type for a property schema. */
function wrongTypeFor(schema: JsonSchema): unknown {
  const s = resolveRef(doc, schema);
  const types = [
    s.type,
    ...((s.anyOf ?? s.oneOf ?? []) as JsonSchema[]).map((x) => resolveRef(doc, x).type),
  ].flat();
  return types.includes('object') ? 12345 : { wrong: true };
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect);
    const t = useBeforeAll(() => h.tenant());

    describe.each(jsonRoutes.map((r) => [r.name, r] as const))('%s', (_, route) => {
      it('malformed JSON → 400 body_invalid_json', async () => {
        const { path } = sampleRequest(route, doc);
        for (const raw of [
          '{"title": ',
          "{'title': 'single quotes'}",
          '{"a": 1,}',
          'NaN',
          '{"a": undefined}',
        ]) {
          const res = await h.request(route.method, path, {
            key: t.liveKey,
            raw,
            headers: { 'content-type': 'application/json' },
          });
          expectApiError(res, 400, 'body_invalid_json');
        }
      });

      it('an unknown body field → 400 parameter_unknown naming the field', async () => {
        const { path, body } = sampleRequest(route, doc);
        const res = await h.request(route.method, path, {
          key: t.liveKey,
          body: { ...(body as object), colour_typo: 'red' },
        });
        expectApiError(res, 400, 'parameter_unknown');
        expect(res.body.error.param).toBe('colour_typo');
        expect(res.body.error.message).toContain('colour_typo');
      });

      it('a field of the wrong type → 400 parameter_invalid with param naming the field', async () => {
        const properties = (resolveRef(doc, route.jsonBody!).properties ?? {}) as Record<string, JsonSchema>;
        for (const [name, schema] of Object.entries(properties)) {
          const { path, body } = sampleRequest(route, doc);
          const res = await h.request(route.method, path, {
            key: t.liveKey,
            body: { ...(body as object), [name]: wrongTypeFor(schema) },
          });
          expectApiError(res, 400);
          expect(res.body.error.param?.split('.')[0], `${name}: ${res.text}`).toBe(name);
        }
      });

      it('a NUL character in a body string → 400 parameter_invalid naming the field (both databases)', async () => {
        const { path, body } = sampleRequest(route, doc);
        const field = Object.entries(body as object).find(([, v]) => typeof v === 'string')?.[0];
        const res = await h.request(route.method, path, {
          key: t.liveKey,
          body: field ? { ...(body as object), [field]: 'a\u0000b' } : { ...(body as object), 'k\u0000': 1 },
        });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.param).toBe(field ?? 'k\u0000');
      });

      it('valid JSON nested 5,000 deep is validated like any other body (400 naming the field, never 500)', async () => {
        const { path, body } = sampleRequest(route, doc);
        const field = Object.keys(body as object)[0] ?? 'x';
        const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
        const withKey = (route.operation.parameters ?? []).some(
          (p) => p.name.toLowerCase() === 'idempotency-key',
        );
        const variants: Record<string, string>[] = [{}];
        if (withKey) variants.push({ 'idempotency-key': `deep-${Date.now()}-${route.method}` });
        for (const headers of variants) {
          const res = await h.request(route.method, path, {
            key: t.liveKey,
            raw: `{${JSON.stringify(field)}: ${deep}}`,
            headers: { 'content-type': 'application/json', ...headers },
          });
          expectApiError(res, 400, 'parameter_invalid');
          expect(res.body.error.param?.split('.')[0]).toBe(field);
        }
      });

      it('a body over 64 KiB (read in a processing thread) gets the same answers as a small one', async () => {
        const { path, body } = sampleRequest(route, doc);
        const field = Object.entries(body as object).find(([, v]) => typeof v === 'string')?.[0] ?? 'x';
        const long = 'a'.repeat(70_000);
        const send = (raw: string | Uint8Array, type: string | null = 'application/json') =>
          h.request(route.method, path, {
            key: t.liveKey,
            raw,
            ...(type ? { headers: { 'content-type': type } } : {}),
          });
        expectApiError(await send(`{${JSON.stringify(field)}: "${long}`), 400, 'body_invalid_json');
        expectApiError(await send(JSON.stringify([long])), 400, 'parameter_invalid');
        const nul = await send(JSON.stringify({ ...(body as object), [field]: `${long}\u0000` }));
        expectApiError(nul, 400, 'parameter_invalid');
        expect(nul.body.error.param).toBe(field);
        const untyped = await send(new TextEncoder().encode(JSON.stringify({ [field]: long })), null);
        expectApiError(untyped, 415, 'unsupported_media_type');
      });

      it(`a Content-Type other than JSON → 415 unsupported_media_type`, async () => {
        const { path, body } = sampleRequest(route, doc);
        const accepted = Object.keys(route.operation.requestBody?.content ?? {});
        for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
          if (accepted.includes(type)) continue;
          const res = await h.request(route.method, path, {
            key: t.liveKey,
            raw: JSON.stringify(body),
            headers: { 'content-type': type },
          });
          expectApiError(res, 415, 'unsupported_media_type');
        }
      });

      it('a body without any Content-Type → 415', async () => {
        const { path, body } = sampleRequest(route, doc);
        // Bytes, not a string: fetch would label a string body text/plain.
        const raw = new TextEncoder().encode(JSON.stringify(body));
        const res = await h.request(route.method, path, { key: t.liveKey, raw });
        expectApiError(res, 415, 'unsupported_media_type');
      });

      it('accepts application/json with a charset parameter', async () => {
        const { path, body } = sampleRequest(route, doc);
        const res = await h.request(route.method, path, {
          key: t.liveKey,
          raw: JSON.stringify(body),
          headers: { 'content-type': 'application/json; charset=utf-8' },
        });
        expect([400, 413, 415], res.text).not.toContain(res.status);
      });
    });

    describe.each(withQuery('per_page').map((r) => [r.name, r] as const))('%s paging', (_, route) => {
      it.each([
        ['per_page', '0'],
        ['per_page', '101'],
        ['per_page', '1e9'],
        ['per_page', '-1'],
        ['per_page', 'ten'],
        ['page', '0'],
        ['page', '-1'],
        ['page', '1.5'],
      ])('%s=%s → 400 with that param', async (param, value) => {
        const { path } = sampleRequest(route, doc);
        const res = await h.request(route.method, `${path}?${param}=${value}`, { key: t.liveKey });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.param).toBe(param);
      });

      it('page and per_page at their bounds are accepted', async () => {
        const { path } = sampleRequest(route, doc);
        for (const q of ['per_page=1', 'per_page=100', 'page=1', 'page=999']) {
          const res = await h.request(route.method, `${path}?${q}`, { key: t.liveKey });
          // A fresh path id is a 404 after validation passed; a collection answers the page.
          if (route.pathParams.length) expect(res.status, `${q}: ${res.text}`).toBe(404);
          else {
            expect(res.status, `${q}: ${res.text}`).toBe(200);
            expect(res.body.meta.page).toBe(q.startsWith('page') ? Number(q.split('=')[1]) : 1);
          }
        }
      });
    });

    describe.each(withQuery('from').map((r) => [r.name, r] as const))('%s dates', (_, route) => {
      it.each([
        ['from', '2026-02-30'],
        ['from', '2026-13-01'],
        ['from', 'yesterday'],
        ['to', '2026-02-30'],
        ['to', '2026-13-01'],
        ['to', 'yesterday'],
      ])('%s=%s → 400 with that param', async (param, value) => {
        const { path } = sampleRequest(route, doc);
        const res = await h.request(route.method, `${path}?${param}=${value}`, { key: t.liveKey });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.param).toBe(param);
      });

      it('accepts a bare date, a UTC date-time and a date-time with offset', async () => {
        const { path } = sampleRequest(route, doc);
        for (const v of [
          '2026-01-05',
          '2026-01-05T09:00:00Z',
          '2026-01-05T09:00:00.123+05:30',
          '2024-02-29',
        ]) {
          const res = await h.request(route.method, `${path}?from=${encodeURIComponent(v)}`, {
            key: t.liveKey,
          });
          expect(res.status, `${v}: ${res.text}`).toBe(route.pathParams.length ? 404 : 200);
        }
      });
    });

    describe.each(withBodyField('from').map((r) => [r.name, r] as const))('%s body dates', (_, route) => {
      it.each([
        ['from', '2026-02-30'],
        ['to', '2026-13-01'],
        ['from', 'yesterday'],
      ])('%s=%s → 400 with that param', async (param, value) => {
        const { path, body } = sampleRequest(route, doc);
        const res = await h.request(route.method, path, {
          key: t.liveKey,
          body: { ...(body as object), [param]: value },
        });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.param).toBe(param);
      });
    });

    it('unknown query parameters are ignored', async () => {
      const res = await h.request('GET', '/v1/notes?colour=red&page=1&utm_source=x', { key: t.liveKey });
      expect(res.status).toBe(200);
    });

    it('the Bearer scheme is case-insensitive and surrounding spaces are tolerated', async () => {
      for (const authorization of [`bearer ${t.liveKey}`, `BEARER ${t.liveKey}`, `Bearer   ${t.liveKey}  `]) {
        const res = await h.request('GET', '/v1/notes', { headers: { authorization } });
        expect(res.status, authorization).toBe(200);
      }
    });
  });
}
