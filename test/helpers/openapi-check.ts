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
 * Asserts that a response of a documented route matches the documented schema of its status code, and that
 * the status code itself is documented. Undocumented routes (404/405 of unknown paths) are not checked.
 */
export async function checkResponseAgainstOpenApi(
  app: { request: (p: string) => Response | Promise<Response> },
  res: { method: string; path: string; status: number; body: unknown },
): Promise<void> {
  const { doc, ajv, patterns } = await load(app);
  const pathOnly = res.path.split('?')[0]!;
  const match = patterns.find((p) => p.re.test(pathOnly));
  const operation = match ? doc.paths[match.path]?.[res.method.toLowerCase()] : undefined;
  if (!operation) return;
  const response = operation.responses?.[String(res.status)];
  expect(response, `${res.method} ${match!.path} returned undocumented status ${res.status}`).toBeDefined();
  const schema = response?.content?.['application/json']?.schema;
  if (!schema) return;
  const validate = ajv.compile(rewriteRefs(schema) as object);
  const ok = validate(res.body);
  expect(
    ok,
    `${res.method} ${pathOnly} ${res.status} does not match the OpenAPI schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body).slice(0, 500)}`,
  ).toBe(true);
}
