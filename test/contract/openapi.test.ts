import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness.ts';
import {
  API_MD_SCOPES,
  type ApiRoute,
  loadApiRoutes,
  NOTES_OPERATIONS,
  resolveRef,
  scopesOfOperation,
} from '../helpers/routes.ts';

const { doc, routes } = await loadApiRoutes();

const ERROR_REF = '#/components/schemas/Error';

function errorStatuses(route: ApiRoute): string[] {
  return Object.keys(route.operation.responses ?? {}).filter((s) => Number(s) >= 400);
}

describe('GET /v1/openapi.json', () => {
  const h = useHarness('sqlite');

  it('is served without an API key, as JSON, with a Request-Id', async () => {
    const res = await h.request('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('request-id')).toMatch(/^req_[0-9A-Za-z]{24}$/);
    expect(res.body.openapi).toMatch(/^3\.1\./);
  });

  it('is served even when the request carries a bad key', async () => {
    const res = await h.request('GET', '/v1/openapi.json', { headers: { authorization: 'Bearer nonsense' } });
    expect(res.status).toBe(200);
    expect(res.body.paths).toBeTypeOf('object');
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toMatch(/^3\.1/);
  });

  it('declares bearer authentication as the default security requirement', () => {
    expect(doc.components?.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
  });

  it('documents one shared Error schema with type, code, message, param and request_id', () => {
    const error = doc.components?.schemas?.Error as {
      properties: { error: { properties: Record<string, unknown>; required: string[] } };
    };
    expect(Object.keys(error.properties.error.properties).sort()).toEqual(
      ['code', 'message', 'param', 'request_id', 'type'].sort(),
    );
    expect(error.properties.error.required.sort()).toEqual(['code', 'message', 'request_id', 'type'].sort());
  });

  it('lists the notes operations of API.md', () => {
    expect(routes.map((r) => r.name)).toEqual(expect.arrayContaining(NOTES_OPERATIONS));
  });

  it('operation ids, where given, are unique', () => {
    const ids = routes.map((r) => r.operation.operationId).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe.each(routes.map((r) => [r.name, r] as const))('%s', (_, route) => {
  it('has a summary and a description', () => {
    expect(route.operation.summary?.trim()).toBeTruthy();
    expect(route.operation.description?.trim()).toBeTruthy();
  });

  it('requires the bearer key (own security or the document default) and declares exactly one scope', () => {
    const security = route.operation.security ?? doc.security ?? [];
    expect(security.some((s) => 'bearerAuth' in s)).toBe(true);
    expect(scopesOfOperation(route.operation)).toEqual([route.scope]);
  });

  it('declares the scope API.md assigns to it', () => {
    const expected = API_MD_SCOPES[route.name];
    // Operations API.md does not name (later extensions) are held to "exactly one scope" above.
    if (expected) expect(route.scope).toBe(expected);
  });

  it('documents its 2xx responses (e.g. 200 and 206 for ranges) with a schema', () => {
    const ok = Object.entries(route.operation.responses ?? {}).filter(([s]) => /^2\d\d$/.test(s));
    expect(ok.length).toBeGreaterThan(0);
    for (const [status, response] of ok) {
      expect(response.description?.trim(), status).toBeTruthy();
      const media = Object.values(response.content ?? {});
      expect(media.length, status).toBeGreaterThan(0);
      for (const m of media) expect(m.schema, status).toBeTypeOf('object');
    }
  });

  it('documents the errors every authenticated route can return, with the Error schema', () => {
    const statuses = errorStatuses(route);
    expect(statuses).toEqual(expect.arrayContaining(['401', '403', '429', '500']));
    if (route.pathParams.length) expect(statuses).toContain('404');
    if (route.jsonBody) expect(statuses).toEqual(expect.arrayContaining(['400', '413', '415']));
    if (route.queryParams.length) expect(statuses).toContain('400');
    for (const status of statuses) {
      const response = route.operation.responses![status]!;
      expect(response.description?.trim(), status).toBeTruthy();
      expect(response.content?.['application/json']?.schema, status).toEqual({ $ref: ERROR_REF });
    }
  });

  it('declares every path parameter of its template as a required string', () => {
    const inTemplate = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    expect(route.pathParams.map((p) => p.name).sort()).toEqual(inTemplate.sort());
    for (const p of route.pathParams) {
      expect(p.required).toBe(true);
      expect(p.schema?.type).toBe('string');
    }
  });

  it('documents a JSON object body with its fields, when it takes one', () => {
    if (!route.jsonBody) return;
    expect(route.operation.requestBody?.required).toBe(true);
    const schema = resolveRef(doc, route.jsonBody);
    expect(schema.type).toBe('object');
    // Unknown body fields are rejected, and the document says so.
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys((schema.properties ?? {}) as object).length).toBeGreaterThan(0);
  });
});
