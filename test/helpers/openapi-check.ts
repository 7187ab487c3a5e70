import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

type OpenApiDoc = {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>
  >;
  components?: { schemas?: Record<string, unknown> };
};

const cache = new WeakMap<
  object,
  { doc: OpenApiDoc; ajv: Ajv2020; patterns: { re: RegExp; path: string }[] }
>();

async function load(app: { request: (p: string) => Response | Promise<Response> }) {
  let entry = cache.get(app);
  if (!entry) {
    const doc = (await (await app.request('/v1/openapi.json')).json()) as OpenApiDoc;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'openapi', components: doc.components ?? {} });
    const patterns = Object.keys(doc.paths).map((p) => ({
      path: p,
      re: new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
    entry = { doc, ajv, patterns };
    cache.set(app, entry);
  }
  return entry;
}

function rewriteRefs(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/'));
}

/**
 * A validator for any schema of an OpenAPI 3.1 document (Ajv 2020, formats included), with `#/components/…`
 * references resolved against the document's components. Returns null when the value is valid, else the errors.
 */
export function openApiSchemaValidator(doc: {
  components?: Record<string, unknown>;
}): (schema: unknown, value: unknown) => string | null {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'openapi', components: doc.components ?? {} });
  return (schema, value) => {
    const validate = ajv.compile(rewriteRefs(schema) as object);
    return validate(value) ? null : ajv.errorsText(validate.errors);
  };
}

/**
 * Asserts that a response of a documented route matches the documented schema of its status code, and that
 * the status code itself is documented. Undocumented routes (404/405 of unknown paths) are not checked.
 */
export async function checkResponseAgainstOpenApi(
  app: { request: (p: string) => Response | Promise<Response> },
  res: { method: string; path: string; status: number; body: unknown; contentType?: string | null },
): Promise<void> {
  const { doc, ajv, patterns } = await load(app);
  // The path the router sees: dot segments resolved, as fetch and every HTTP client do.
  const pathOnly = new URL(res.path, 'http://localhost').pathname;
  const match = patterns.find((p) => p.re.test(pathOnly));
  const operation = match ? doc.paths[match.path]?.[res.method.toLowerCase()] : undefined;
  if (!operation) return;
  const response = operation.responses?.[String(res.status)];
  expect(response, `${res.method} ${match!.path} returned undocumented status ${res.status}`).toBeDefined();
  // A response in another media type (an export's text/markdown) is checked against that type's schema.
  const media = res.contentType?.split(';')[0]?.trim().toLowerCase();
  const schema =
    media && !media.includes('json') && response?.content?.[media]
      ? response.content[media]!.schema
      : response?.content?.['application/json']?.schema;
  if (!schema) return;
  const validate = ajv.compile(rewriteRefs(schema) as object);
  const ok = validate(res.body);
  expect(
    ok,
    `${res.method} ${pathOnly} ${res.status} does not match the OpenAPI schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body).slice(0, 500)}`,
  ).toBe(true);
}

/** Patterns that must never reach a client: stack frames, source paths, SQL and driver errors. */
const LEAKS: [string, RegExp][] = [
  ['a stack frame', /\bat (?:async )?[\w$.<>]*\s*\(?(?:file:\/\/|\/|node:)[^)\s]*:\d+/],
  ['a source file path', /(?:\/work\/|\/src\/|node_modules|\.ts:\d+|\.js:\d+)/],
  ['SQL', /\b(?:SELECT\b[\s\S]*\bFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b/i],
  [
    'a database error',
    /SQLITE_|sqlite3|syntax error at or near|violates .* constraint|relation "|invalid byte sequence|duplicate key value/i,
  ],
  ['a network error', /\b(?:ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EPIPE)\b/],
];

/** Asserts that a response text carries no stack trace, file path, SQL or database error. */
export function expectNoLeak(text: string, what = 'response'): void {
  for (const [name, re] of LEAKS) {
    expect(re.test(text), `${what} contains ${name}: ${text.slice(0, 300)}`).toBe(false);
  }
}

/** API.md "Errors": the type that goes with each status. */
const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  409: 'conflict_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'api_error',
};

interface ErrorResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/**
 * Asserts the API's one error shape: `{error: {type, code, message, param?, request_id}}`, `Request-Id` equal to
 * `request_id`, JSON content type, nothing leaked; and, when given, the status and code.
 */
export function expectApiError(res: ErrorResponse, status?: number, code?: string): void {
  const summary = `${res.status} ${res.text.slice(0, 300)}`;
  if (status !== undefined) expect(res.status, summary).toBe(status);
  expect(res.status, summary).toBeGreaterThanOrEqual(400);
  expect(res.headers.get('content-type') ?? '', summary).toMatch(/^application\/json/);
  const body = res.body as { error?: Record<string, unknown> };
  expect(body, summary).toBeTypeOf('object');
  expect(Object.keys(body), summary).toEqual(['error']);
  const error = body.error!;
  expect(error, summary).toMatchObject({
    type: expect.any(String),
    code: expect.any(String),
    message: expect.any(String),
    request_id: expect.stringMatching(/^req_[0-9A-Za-z]{24}$/),
  });
  const allowed = new Set(['type', 'code', 'message', 'param', 'request_id']);
  expect(
    Object.keys(error).filter((k) => !allowed.has(k)),
    summary,
  ).toEqual([]);
  if ('param' in error) expect(error.param, summary).toBeTypeOf('string');
  expect((error.message as string).length, summary).toBeGreaterThan(0);
  expect(error.type, summary).toBe(TYPE_BY_STATUS[res.status]);
  expect(res.headers.get('request-id'), summary).toBe(error.request_id);
  if (code !== undefined) expect(error.code, summary).toBe(code);
  expectNoLeak(res.text, `${res.status} error`);
}
