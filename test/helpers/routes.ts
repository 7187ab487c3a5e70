import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { isScope, type Scope } from '../../src/features/api-keys/scopes.ts';
import { randomBase62 } from '../../src/lib/ids.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createTestDatabase } from './dialects.ts';

/**
 * The route list of the API, read from the OpenAPI document the app serves. Contract suites iterate over it,
 * so every route added later (recordings, search, webhooks, …) is covered without touching those suites.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
  example?: unknown;
  description?: string;
}

export type JsonSchema = { [key: string]: unknown };

export interface OpenApiOperation {
  summary?: string;
  description?: string;
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: JsonSchema }> }>;
  [extension: `x-${string}`]: unknown;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  security?: Record<string, string[]>[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema>; securitySchemes?: Record<string, JsonSchema> };
}

export interface ApiRoute {
  /** `GET /v1/notes/{id}`: used as the test name. */
  name: string;
  method: HttpMethod;
  /** The OpenAPI path template, e.g. `/v1/notes/{id}`. */
  path: string;
  /** The one scope the operation needs. */
  scope: Scope;
  pathParams: OpenApiParameter[];
  queryParams: OpenApiParameter[];
  /** The JSON request body schema (refs resolved one level deep), when the operation takes a JSON body. */
  jsonBody?: JsonSchema;
  operation: OpenApiOperation;
}

const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Scopes named in an operation: `x-scope` when present, else every backticked name after "Scope:". */
export function scopesOfOperation(operation: OpenApiOperation): string[] {
  const declared = operation['x-scope'];
  if (typeof declared === 'string') return [declared];
  if (Array.isArray(declared)) return declared.map(String);
  const m = /Scopes?:\s*((?:`[^`]+`[\s,]*(?:and|or)?[\s,]*)+)/.exec(operation.description ?? '');
  if (!m) return [];
  return [...m[1]!.matchAll(/`([^`]+)`/g)].map((x) => x[1]!);
}

/** Every operation of the document as an ApiRoute; throws when an operation does not declare exactly one scope. */
export function routesFromDocument(doc: OpenApiDocument): ApiRoute[] {
  const routes: ApiRoute[] = [];
  const problems: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    // The REST API: /mcp (documented too) speaks JSON-RPC and is tested by test/mcp.
    if (!path.startsWith('/v1/')) continue;
    for (const [lower, operation] of Object.entries(item)) {
      const method = lower.toUpperCase() as HttpMethod;
      if (!METHODS.includes(method)) continue;
      const name = `${method} ${path}`;
      const scopes = scopesOfOperation(operation);
      if (scopes.length !== 1 || !isScope(scopes[0]!)) {
        problems.push(`${name} declares scopes [${scopes.join(', ')}]; expected exactly one known scope`);
        continue;
      }
      const params = operation.parameters ?? [];
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      routes.push({
        name,
        method,
        path,
        scope: scopes[0] as Scope,
        pathParams: params.filter((p) => p.in === 'path'),
        queryParams: params.filter((p) => p.in === 'query'),
        ...(bodySchema ? { jsonBody: resolveRef(doc, bodySchema) } : {}),
        operation,
      });
    }
  }
  if (problems.length) throw new Error(`OpenAPI operations without one scope:\n${problems.join('\n')}`);
  return routes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Follows a `#/components/schemas/X` reference (one level). */
export function resolveRef(doc: OpenApiDocument, schema: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  const target = doc.components?.schemas?.[name];
  if (!target) throw new Error(`Unresolvable $ref ${ref}`);
  return target;
}

/** The served document of an app (no key needed). */
export async function fetchOpenApiDocument(app: {
  request: (path: string) => Response | Promise<Response>;
}): Promise<OpenApiDocument> {
  const res = await app.request('/v1/openapi.json');
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /v1/openapi.json → ${res.status}: ${text.slice(0, 500)}`);
  const doc = JSON.parse(text) as OpenApiDocument;
  if (!doc.paths) throw new Error(`GET /v1/openapi.json has no paths: ${text.slice(0, 500)}`);
  return doc;
}

let cached: Promise<{ doc: OpenApiDocument; routes: ApiRoute[] }> | undefined;

/**
 * The document and the route list, from an app built on a throwaway SQLite database: test files call this at
 * top level (before their harness exists) to generate one test per route.
 */
export function loadApiRoutes(): Promise<{ doc: OpenApiDocument; routes: ApiRoute[] }> {
  cached ??= (async () => {
    const db = await createTestDatabase('sqlite');
    try {
      const app = buildApp(
        createDeps(
          { ...loadConfig({ WORKER: 'false' }), database: db.database },
          { database: { db: db.db, dialect: 'sqlite' }, logger: createLogger('silent') },
        ),
      );
      const doc = await fetchOpenApiDocument(app);
      return { doc, routes: routesFromDocument(doc) };
    } finally {
      await db.destroy();
    }
  })();
  return cached;
}

/** Id prefix by the collection a path parameter follows (`/notes/{id}` → `note_`) or by its name. */
const PREFIX_BY_SEGMENT: Record<string, string> = {
  notes: 'note_',
  recordings: 'rec_',
  highlights: 'hl_',
  'action-items': 'ai_',
  webhooks: 'wh_',
  deliveries: 'dlv_',
  events: 'evt_',
  keys: 'key_',
};
const PREFIX_BY_NAME: Record<string, string> = {
  note_id: 'note_',
  recording_id: 'rec_',
  highlight_id: 'hl_',
  action_item_id: 'ai_',
  webhook_id: 'wh_',
  delivery_id: 'dlv_',
  event_id: 'evt_',
};

/** A new id of the form the API issues: prefix + 24 base62 characters. */
export function freshId(prefix: string): string {
  return prefix + randomBase62(24);
}

/** The id prefix a path parameter of the route expects. */
export function idPrefixOf(route: ApiRoute, param: string): string {
  const doc = route.pathParams.find((p) => p.name === param);
  const example = doc?.example ?? doc?.schema?.example;
  if (typeof example === 'string' && /^[a-z]+_[0-9A-Za-z]+$/.test(example))
    return example.split('_')[0]!.concat('_');
  if (PREFIX_BY_NAME[param]) return PREFIX_BY_NAME[param];
  const segments = route.path.split('/');
  const before = segments[segments.indexOf(`{${param}}`) - 1];
  const prefix = before ? PREFIX_BY_SEGMENT[before] : undefined;
  if (!prefix)
    throw new Error(`No id prefix known for {${param}} of ${route.name}; add it to test/helpers/routes.ts`);
  return prefix;
}

/** The route's path with every `{param}` filled: from `ids` when given, else a fresh id of the right prefix. */
export function buildPath(route: ApiRoute, ids: Record<string, string> = {}): string {
  return route.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(ids[name] ?? freshId(idPrefixOf(route, name))),
  );
}

/** Bodies that pass validation, for the operations we know; others are derived from the schema. */
const SAMPLE_BODIES: Record<string, unknown> = {
  'POST /v1/notes': {
    title: 'Weekly sync',
    transcript: 'Alice: Welcome to the weekly sync.\nBob: The budget review is due on Friday.',
    tags: ['weekly'],
  },
  'PATCH /v1/notes/{id}': { title: 'Renamed note' },
  'PATCH /v1/action-items/{id}': { status: 'completed' },
  'POST /v1/search': { query: 'budget review' },
  'POST /v1/recordings': { transcript: 'Alice: A recording made from text.' },
  'POST /v1/webhooks': { url: 'https://example.com/hooks/minutes', events: ['note.created'] },
  'PATCH /v1/webhooks/{id}': { active: false },
};

/** A request body that passes the route's validation, or undefined when the route takes none. */
export function sampleBody(route: ApiRoute, doc?: OpenApiDocument): unknown {
  if (!route.jsonBody) return undefined;
  if (route.name in SAMPLE_BODIES) return structuredClone(SAMPLE_BODIES[route.name]);
  return sampleFromSchema(route.jsonBody, doc);
}

function sampleFromSchema(schema: JsonSchema, doc: OpenApiDocument | undefined, depth = 0): unknown {
  const s = doc ? resolveRef(doc, schema) : schema;
  if (s.example !== undefined) return s.example;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  if (Array.isArray(s.anyOf) && s.anyOf.length)
    return sampleFromSchema(s.anyOf[0] as JsonSchema, doc, depth + 1);
  switch (s.type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, JsonSchema>;
      const required = (s.required ?? []) as string[];
      return Object.fromEntries(required.map((k) => [k, sampleFromSchema(props[k] ?? {}, doc, depth + 1)]));
    }
    case 'array':
      return depth > 4 ? [] : [sampleFromSchema((s.items ?? {}) as JsonSchema, doc, depth + 1)];
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return true;
    default:
      return 'sample';
  }
}

export interface SampleRequest {
  method: HttpMethod;
  path: string;
  body?: unknown;
}

/** A request to the route that would pass validation (path ids are fresh, so lookups find nothing). */
export function sampleRequest(route: ApiRoute, doc?: OpenApiDocument): SampleRequest {
  const body = sampleBody(route, doc);
  return { method: route.method, path: buildPath(route), ...(body !== undefined ? { body } : {}) };
}

/** The operations of the notes API (API.md "Notes"): the first routes the served document must list. */
export const NOTES_OPERATIONS = [
  'GET /v1/notes',
  'POST /v1/notes',
  'GET /v1/notes/{id}',
  'PATCH /v1/notes/{id}',
  'DELETE /v1/notes/{id}',
];

/**
 * API.md "Authentication and scopes", written out per operation (not read from the code): the one scope each
 * operation needs. `GET /v1/webhooks/{id}` is not named there; it belongs to the webhooks family, whose
 * every operation API.md gives `webhooks:manage`.
 */
export const API_MD_SCOPES: Record<string, Scope> = {
  'GET /v1/notes': 'notes:read',
  'GET /v1/notes/{id}': 'notes:read',
  'POST /v1/notes': 'notes:write',
  'POST /v1/recordings': 'notes:write',
  'PATCH /v1/notes/{id}': 'notes:write',
  'DELETE /v1/notes/{id}': 'notes:write',
  'PATCH /v1/notes/{id}/speakers': 'notes:write',
  'GET /v1/notes/{id}/export': 'notes:read',
  'GET /v1/recordings': 'recordings:read',
  'GET /v1/recordings/{id}': 'recordings:read',
  'GET /v1/recordings/{id}/audio': 'recordings:read',
  'POST /v1/search': 'search',
  'POST /v1/ask': 'search',
  'GET /v1/action-items': 'actions:read',
  'PATCH /v1/action-items/{id}': 'actions:write',
  'POST /v1/webhooks': 'webhooks:manage',
  'GET /v1/webhooks': 'webhooks:manage',
  'GET /v1/webhooks/{id}': 'webhooks:manage',
  'PATCH /v1/webhooks/{id}': 'webhooks:manage',
  'DELETE /v1/webhooks/{id}': 'webhooks:manage',
  'GET /v1/webhooks/{id}/deliveries': 'webhooks:manage',
  'POST /v1/webhooks/{id}/deliveries/{delivery_id}/redeliver': 'webhooks:manage',
  'POST /v1/webhooks/{id}/test': 'webhooks:manage',
  'POST /v1/webhooks/{id}/rotate-secret': 'webhooks:manage',
  'POST /v1/imports': 'notes:write',
  'GET /v1/imports/{id}': 'notes:read',
};
