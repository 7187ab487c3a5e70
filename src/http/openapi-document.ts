import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Deps } from '../deps.ts';
import type { AppEnv } from './context.ts';

/** Where the document is served; /docs renders it. */
export const OPENAPI_PATH = '/v1/openapi.json';

/** One tag per feature, in the order a reader meets them; every operation names one of these. */
export const API_TAGS = [
  {
    name: 'Notes',
    description:
      'Meeting notes: transcript with speakers, summary, action items and highlights. A note is created from a ' +
      'recording or a transcript and processed in the background (`status`: processing → ready or failed).',
  },
  {
    name: 'Recordings',
    description: 'Audio uploads (multipart): stored, transcribed and turned into a note.',
  },
  {
    name: 'Imports',
    description:
      'Exports of other services and of Minutes (Limitless ZIP, Omi JSON, a Minutes account export) imported ' +
      'as notes, in the background, with progress and the items that failed.',
  },
  { name: 'Action items', description: 'Tasks extracted from notes, across all notes; mark them done here.' },
  {
    name: 'Search',
    description: 'Finds notes by meaning and by keywords, with a snippet and a relevance score per note.',
  },
  {
    name: 'Webhooks',
    description:
      'Endpoints that receive signed events (`recording.ready`, `note.created`, `action_item.created`, ' +
      '`note.processed`), their delivery log and redelivery. The payloads are under the document’s `webhooks`.',
  },
  {
    name: 'MCP',
    description: 'The Model Context Protocol server for AI assistants, with the same keys and scopes.',
  },
];

/**
 * What a feature adds to the document besides its routes' operations (which register themselves): a security
 * scheme, an operation served outside OpenAPIHono, the payloads under `webhooks`.
 */
export type OpenApiPart = (registry: OpenAPIHono['openAPIRegistry'], deps: Deps) => void;

/**
 * Serves the OpenAPI 3.1 document at /v1/openapi.json: info (with license), tags, `servers` (PUBLIC_URL when
 * set, else relative to wherever the document was fetched from), the bearer scheme, then the features' parts
 * in the order given. Operations register themselves with their routes.
 */
export function documentApi(app: OpenAPIHono<AppEnv>, deps: Deps, parts: readonly OpenApiPart[]): void {
  app.doc31(OPENAPI_PATH, {
    openapi: '3.1.0',
    info: {
      title: 'Minutes API',
      version: '1.0.0',
      description:
        'Notes from captured recordings: transcripts with speakers, summaries, action items, highlights, ' +
        'semantic search and webhooks. Authenticate with `Authorization: Bearer svc_sk_live_…` (or `svc_sk_test_…` ' +
        'for the seeded test data space). Each operation names the one scope it needs in its `security` ' +
        'requirement (a key created without scopes has them all). The MCP server for assistants is at `POST /mcp` ' +
        '(JSON-RPC over Streamable HTTP, stateless) with the same keys and scopes; its tools are described by ' +
        'MCP `tools/list`. A rendered reference of this document is served at `/docs`.',
      license: { name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' },
    },
    servers: deps.config.publicUrl
      ? [{ url: deps.config.publicUrl, description: 'This Minutes server (PUBLIC_URL).' }]
      : [{ url: '/', description: 'The server this document was fetched from (set PUBLIC_URL to name it).' }],
    tags: API_TAGS,
    security: [{ bearerAuth: [] }],
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key: svc_sk_live_… or svc_sk_test_…',
  });
  for (const part of parts) part(app.openAPIRegistry, deps);
}
