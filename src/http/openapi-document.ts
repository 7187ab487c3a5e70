import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Deps } from '../deps.ts';
import { documentMcp } from '../features/mcp/mcp.openapi.ts';
import { OAUTH_ROUTES } from '../features/oauth/oauth.paths.ts';
import { SCOPE_DESCRIPTIONS } from '../features/oauth/scope-descriptions.ts';
import { documentWebhookEvents } from '../features/webhooks/webhooks.openapi.ts';
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
 * Serves the OpenAPI 3.1 document at /v1/openapi.json: info (with license), tags, `servers` (PUBLIC_URL when
 * set, else relative to wherever the document was fetched from), the bearer scheme, POST /mcp and the event
 * payloads under `webhooks`. Operations register themselves with their routes.
 */
export function documentApi(app: OpenAPIHono<AppEnv>, deps: Deps): void {
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
  // The authorization server MCP clients sign in with (docs/mcp.md); its access tokens are bound to /mcp.
  const issuer = deps.config.publicUrl?.replace(/\/+$/, '') ?? '';
  app.openAPIRegistry.registerComponent('securitySchemes', 'oauth2', {
    type: 'oauth2',
    description:
      'OAuth 2.1 (authorization code with PKCE S256, dynamic registration) for MCP clients. Access tokens are ' +
      'accepted by POST /mcp only (the /v1 operations take API keys); each tool needs the scope of the REST ' +
      "operation it wraps, named in that operation's `x-scope`.",
    flows: {
      authorizationCode: {
        authorizationUrl: `${issuer}${OAUTH_ROUTES.authorization}`,
        tokenUrl: `${issuer}${OAUTH_ROUTES.token}`,
        refreshUrl: `${issuer}${OAUTH_ROUTES.token}`,
        scopes: SCOPE_DESCRIPTIONS,
      },
    },
  });
  documentMcp(app.openAPIRegistry);
  documentWebhookEvents(app.openAPIRegistry);
}
