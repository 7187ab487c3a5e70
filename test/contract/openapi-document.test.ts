import { describe, expect, it } from 'vitest';
import { openApiSchemaValidator } from '../helpers/openapi-check.ts';
import { API_MD_SCOPES, type JsonSchema, loadApiRoutes, type OpenApiOperation } from '../helpers/routes.ts';

/**
 * The served document as a reader uses it: the scope of every operation in its own `security` requirement,
 * an example for every response body, and examples that are true to their schemas.
 */

/** Endpoints that need no key (API.md): not documented, or documented with `security: []`. */
const PUBLIC_PATHS = ['/healthz', '/readyz', '/v1/openapi.json'];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const { doc } = await loadApiRoutes();
const validate = openApiSchemaValidator(doc);

const operations: { name: string; path: string; operation: OpenApiOperation }[] = Object.entries(
  doc.paths,
).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, path, operation })),
);
const v1Operations = operations.filter((o) => o.path.startsWith('/v1/'));

type Media = { schema?: JsonSchema; example?: unknown; examples?: Record<string, { value?: unknown }> };
type Header = { schema?: JsonSchema; example?: unknown };
type Response = { content?: Record<string, Media>; headers?: Record<string, Header> };

const responsesOf = (operation: OpenApiOperation) =>
  Object.entries((operation.responses ?? {}) as Record<string, Response>);
const isJson = (mediaType: string) => /^application\/(.+\+)?json\b/.test(mediaType);

/** Follows `#/components/schemas/X` references until a schema with content. */
function resolve(schema: JsonSchema | undefined): JsonSchema | undefined {
  let current = schema;
  for (let i = 0; current && typeof current.$ref === 'string' && i < 10; i++) {
    current = doc.components?.schemas?.[current.$ref.replace('#/components/schemas/', '')];
  }
  return current;
}

/** Every (sub)schema carrying an `example`, with where it is: walks the keywords that hold schemas. */
function* schemaExamples(schema: unknown, where: string): Generator<[string, JsonSchema]> {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
  const s = schema as JsonSchema;
  if ('example' in s) yield [where, s];
  for (const key of ['items', 'additionalProperties', 'not', 'contains', 'propertyNames']) {
    yield* schemaExamples(s[key], `${where}.${key}`);
  }
  for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) {
    if (Array.isArray(s[key])) {
      for (const [i, sub] of (s[key] as unknown[]).entries())
        yield* schemaExamples(sub, `${where}.${key}[${i}]`);
    }
  }
  for (const [name, sub] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
    yield* schemaExamples(sub, `${where}.properties.${name}`);
  }
}

/** Every example of the document with the schema it must satisfy. */
function allExamples(): { where: string; schema: unknown; example: unknown }[] {
  const found: { where: string; schema: unknown; example: unknown }[] = [];
  const addSchema = (schema: unknown, where: string) => {
    for (const [at, s] of schemaExamples(schema, where))
      found.push({ where: at, schema: s, example: s.example });
  };
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    addSchema(schema, `#/components/schemas/${name}`);
  }
  const addMedia = (media: Media, where: string) => {
    addSchema(media.schema, `${where}.schema`);
    if ('example' in media)
      found.push({ where: `${where}.example`, schema: media.schema, example: media.example });
    for (const [key, ex] of Object.entries(media.examples ?? {})) {
      found.push({ where: `${where}.examples.${key}`, schema: media.schema, example: ex.value });
    }
  };
  for (const { name, operation } of operations) {
    for (const p of operation.parameters ?? []) {
      addSchema(p.schema, `${name} parameter ${p.name}`);
      if ('example' in p)
        found.push({ where: `${name} parameter ${p.name}`, schema: p.schema, example: p.example });
    }
    for (const [type, media] of Object.entries(
      (operation.requestBody?.content ?? {}) as Record<string, Media>,
    )) {
      addMedia(media, `${name} requestBody ${type}`);
    }
    for (const [status, response] of responsesOf(operation)) {
      for (const [type, media] of Object.entries(response.content ?? {})) {
        addMedia(media, `${name} ${status} ${type}`);
      }
      for (const [header, h] of Object.entries(response.headers ?? {})) {
        addSchema(h.schema, `${name} ${status} header ${header}`);
        if ('example' in h) {
          found.push({ where: `${name} ${status} header ${header}`, schema: h.schema, example: h.example });
        }
      }
    }
  }
  return found;
}

/** Every string value inside an example (not its keys). */
function* strings(value: unknown): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (Array.isArray(value)) for (const v of value) yield* strings(v);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) yield* strings(v);
}

describe('OpenAPI document: scopes', () => {
  it('keeps bearer authentication as the document-wide default', () => {
    expect(doc.components?.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
  });

  it('documents every operation of API.md’s scope table, and no /v1 operation outside it', () => {
    expect(v1Operations.map((o) => o.name).sort()).toEqual(Object.keys(API_MD_SCOPES).sort());
  });

  it.each(v1Operations.map((o) => [o.name, o] as const))(
    '%s declares exactly the scope API.md gives it, and an API key as its only security requirement',
    (name, { operation }) => {
      // /v1 authenticates API keys only: OAuth access tokens are for POST /mcp.
      expect(operation.security, name).toEqual([{ bearerAuth: [] }]);
      expect(operation['x-scope'], name).toBe(API_MD_SCOPES[name]);
    },
  );

  it('lists the oauth2 requirement only on POST /mcp, the one operation that accepts OAuth access tokens', () => {
    const withOAuth = operations
      .filter((o) => o.operation.security?.some((requirement) => 'oauth2' in requirement))
      .map((o) => o.name);
    expect(withOAuth).toEqual(['POST /mcp']);
    expect(doc.components?.securitySchemes?.oauth2).toMatchObject({ type: 'oauth2' });
  });

  it('leaves the public endpoints out, or marks them as needing no key', () => {
    for (const path of PUBLIC_PATHS) {
      for (const operation of Object.values(doc.paths[path] ?? {})) {
        expect(operation.security, path).toEqual([]);
      }
    }
  });

  it('documents POST /mcp (API.md names it among the endpoints), authenticated by the same bearer keys', () => {
    expect(Object.keys(doc.paths['/mcp'] ?? {})).toEqual(['post']);
    expect(doc.paths['/mcp']!.post!.security).toEqual([{ bearerAuth: [] }, { oauth2: [] }]);
    expect(Object.keys(doc.paths['/mcp']!.post!.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '401', '403', '429']),
    );
  });

  it('gives every operation outside /v1 its own security requirement', () => {
    for (const { name, path, operation } of operations) {
      if (path.startsWith('/v1/') || PUBLIC_PATHS.includes(path)) continue;
      expect(operation.security, name).toBeDefined();
    }
  });
});

describe('OpenAPI document: examples', () => {
  it.each(operations.map((o) => [o.name, o] as const))(
    '%s has an example for every 2xx JSON response body',
    (name, { operation }) => {
      const ok = responsesOf(operation).filter(([status]) => /^2\d\d$/.test(status));
      expect(ok.length, name).toBeGreaterThan(0);
      for (const [status, response] of ok) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (!isJson(type)) continue;
          const hasExample =
            media.example !== undefined ||
            Object.keys(media.examples ?? {}).length > 0 ||
            resolve(media.schema)?.example !== undefined;
          expect(hasExample, `${name} ${status} ${type} has no example`).toBe(true);
        }
      }
    },
  );

  it('has an example for every header of a 2xx response (e.g. the audio download)', () => {
    for (const { name, operation } of operations) {
      for (const [status, response] of responsesOf(operation)) {
        if (!/^2\d\d$/.test(status)) continue;
        for (const [header, h] of Object.entries(response.headers ?? {})) {
          expect(h.example ?? h.schema?.example, `${name} ${status} ${header}`).toBeDefined();
        }
      }
    }
  });

  const examples = allExamples();

  it('finds the examples to check (sanity)', () => {
    expect(examples.length).toBeGreaterThan(50);
  });

  it.each(examples.map((e) => [e.where, e] as const))('%s: the example validates', (where, e) => {
    expect(e.schema, `${where} has an example but no schema`).toBeTypeOf('object');
    expect(validate(e.schema, e.example), `${where}: ${JSON.stringify(e.example).slice(0, 300)}`).toBeNull();
  });

  it('uses ids of the API’s form in its examples: prefix + 24 characters of [0-9A-Za-z]', () => {
    const text = JSON.stringify(examples.flatMap((e) => [...strings(e.example)]));
    const ids = text.match(/\b(?:note|rec|hl|ai|wh|evt|dlv|key|req)_[0-9A-Za-z]+/g) ?? [];
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(id).toMatch(/^[a-z]+_[0-9A-Za-z]{24}$/);
  });

  it('writes timestamps in UTC with Z and dates as YYYY-MM-DD', () => {
    const text = JSON.stringify(examples.flatMap((e) => [...strings(e.example)]));
    const stamps = text.match(/\d{4}-\d{2}-\d{2}T[^"\s,;]*/g) ?? [];
    expect(stamps.length).toBeGreaterThan(0);
    for (const stamp of stamps) expect(stamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
    for (const { where, schema, example } of examples) {
      if (typeof example === 'string' && resolve(schema as JsonSchema)?.format === 'date') {
        expect(example, where).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      }
    }
  });
});
