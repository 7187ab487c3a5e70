import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { consentPage, oauthErrorPage } from '../../../web/pages/oauth.pages.ts';
import type { Mode } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { clientAddress } from '../../http/client-address.ts';
import type { AppEnv } from '../../http/context.ts';
import { hostAllowList } from '../../http/host-allow-list.ts';
import { chargeRateLimit } from '../../http/rate-limit.ts';
import { AppError } from '../../lib/errors.ts';
import { isScope, SCOPES, type Scope } from '../api-keys/scopes.ts';
import { loadAssets } from '../dashboard/assets.ts';
import type { DashEnv } from '../dashboard/dashboard.env.ts';
import { PAGE_HEADERS } from '../dashboard/respond.ts';
import { requireSession } from '../dashboard/session.ts';
import { sameString } from '../users/tokens.ts';
import { insertConnection } from './oauth.connections.ts';
import { CONSENT_PATH, OAUTH_ROUTES } from './oauth.paths.ts';
import type { OAuthServer } from './oauth.provider.ts';
import { issuerOf, oauthServer } from './oauth.servers.ts';

/** Paths the library answers itself (its endpoints). */
const LIBRARY_PATHS = new Set<string>(Object.values(OAUTH_ROUTES));
const LIBRARY_PREFIXES = [`${OAUTH_ROUTES.authorization}/`, `${OAUTH_ROUTES.registration}/`];

function isLibraryPath(path: string): boolean {
  return LIBRARY_PATHS.has(path) || LIBRARY_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/** Endpoints a client can call without a person: each address is held to RATE_LIMIT_PER_MINUTE on them. */
const LIMITED_PATHS = new Set<string>([
  OAUTH_ROUTES.registration,
  OAUTH_ROUTES.token,
  OAUTH_ROUTES.revocation,
]);

/**
 * Counts one request against a rate-limit key (one atomic upsert, shared by every node); answers the 429 in the
 * OAuth error format beyond the limit, else null.
 */
async function charge(deps: Deps, c: Context, key: string): Promise<Response | null> {
  try {
    await chargeRateLimit(deps, key);
    return null;
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'rate_limited') throw err;
    return c.json(
      { error: 'temporarily_unavailable', error_description: err.message },
      429,
      err.details.headers,
    );
  }
}

/** Counts the request against its address: the peer, or behind a trusted proxy the address it forwarded. */
function chargeAddress(deps: Deps, c: Context): Promise<Response | null> {
  return charge(deps, c, `oauth-address:${clientAddress(c, deps.config.trustProxy)}`);
}

function decodedOrRaw(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A token request is a small form; a bigger or unsized body is refused before it is read. */
const MAX_TOKEN_BODY_BYTES = 16 * 1024;

/** The client a token request names: `client_id` of the form, else the user of HTTP Basic authentication. */
function tokenClientId(form: URLSearchParams, authorization: string | undefined): string | null {
  const named = form.get('client_id');
  if (named) return named;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '')?.[1];
  if (!basic) return null;
  const user = Buffer.from(basic, 'base64').toString('utf8').split(':')[0];
  return user ? decodeURIComponent(user.replace(/\+/g, '%20')) : null;
}

/**
 * Also counts a token request against its client (a client spread over many addresses, or many clients behind
 * one proxy address). The form is read here and handed to the library already read (it accepts `req.body`).
 */
async function chargeTokenClient(deps: Deps, c: Context): Promise<Response | null> {
  const node = nodeBindings(c);
  if (!node) return null;
  const length = Number(c.req.header('content-length'));
  if (!Number.isFinite(length) || length > MAX_TOKEN_BODY_BYTES) {
    return c.json(
      {
        error: 'invalid_request',
        error_description: `The body must be a form of at most ${MAX_TOKEN_BODY_BYTES} bytes.`,
      },
      413,
    );
  }
  const text = await c.req.text();
  (node.incoming as unknown as { body: string }).body = text;
  let clientId: string | null = null;
  try {
    clientId = tokenClientId(new URLSearchParams(text), c.req.header('authorization'));
  } catch {
    clientId = null;
  }
  if (!clientId) return null;
  return charge(deps, c, `oauth-client:${clientId.slice(0, 512)}`);
}

/** RFC 8414 metadata of an issuer (MCP clients read this one; OpenID discovery is the library's). */
export function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}${OAUTH_ROUTES.authorization}`,
    token_endpoint: `${issuer}${OAUTH_ROUTES.token}`,
    registration_endpoint: `${issuer}${OAUTH_ROUTES.registration}`,
    revocation_endpoint: `${issuer}${OAUTH_ROUTES.revocation}`,
    jwks_uri: `${issuer}${OAUTH_ROUTES.jwks}`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    scopes_supported: [...SCOPES],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
    service_documentation: `${issuer}/docs`,
  };
}

/**
 * OpenID Connect Discovery: the RFC 8414 document and the two fields OpenID requires. Served here rather than by
 * the library, which builds it from the request's Host and advertises endpoints Minutes does not route.
 */
export function openIdConfiguration(issuer: string) {
  return {
    ...authorizationServerMetadata(issuer),
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['ES256'],
  };
}

/** RFC 9728 metadata of the protected resource `<issuer>/mcp`. */
export function protectedResourceMetadata(issuer: string) {
  return {
    resource: `${issuer}/mcp`,
    authorization_servers: [issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Minutes MCP server',
    resource_documentation: `${issuer}/docs`,
  };
}

function nodeBindings(c: Context): HttpBindings | null {
  const env = c.env as Partial<HttpBindings> | undefined;
  return env?.incoming && env.outgoing ? (env as HttpBindings) : null;
}

/** The library needs the node request and response; a request from elsewhere (app.request) gets 503. */
async function toLibrary(c: Context, server: OAuthServer): Promise<Response> {
  const node = nodeBindings(c);
  if (!node)
    return c.json({ error: 'temporarily_unavailable', error_description: 'Served over HTTP only.' }, 503);
  await server.callback(node.incoming, node.outgoing);
  return RESPONSE_ALREADY_SENT;
}

/**
 * Minutes as an OAuth 2.1 authorization server for MCP clients: discovery (RFC 9728, RFC 8414), the library's
 * endpoints (authorize, token, register, revoke, OpenID discovery), and the consent page behind the dashboard's
 * sign-in.
 */
export function mountOAuth(deps: Deps): MiddlewareHandler<AppEnv> {
  const consent = consentApp(deps);
  return async (c, next) => {
    const path = c.req.path;
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') {
      if (
        path === '/.well-known/oauth-protected-resource' ||
        path === '/.well-known/oauth-protected-resource/mcp'
      ) {
        return c.json(protectedResourceMetadata(issuerOf(deps, c)), 200, { 'Cache-Control': 'max-age=300' });
      }
      if (path === '/.well-known/oauth-authorization-server') {
        return c.json(authorizationServerMetadata(issuerOf(deps, c)), 200, {
          'Cache-Control': 'max-age=300',
        });
      }
      if (path === '/.well-known/openid-configuration') {
        return c.json(openIdConfiguration(issuerOf(deps, c)), 200, { 'Cache-Control': 'max-age=300' });
      }
    }
    if (path.startsWith(`${CONSENT_PATH}/`)) {
      return consent.fetch(c.req.raw, { ...(c.env as object), log: c.get('log') });
    }
    if (isLibraryPath(path)) {
      const clientManagement = path.startsWith(`${OAUTH_ROUTES.registration}/`);
      if ((method === 'POST' && LIMITED_PATHS.has(path)) || clientManagement) {
        const limited = await chargeAddress(deps, c);
        if (limited) return limited;
      }
      if (clientManagement) {
        // Reading a registration (RFC 7592) counts against the client it names as well as the address.
        const clientId = decodedOrRaw(path.slice(OAUTH_ROUTES.registration.length + 1));
        const limited = await charge(deps, c, `oauth-client:${clientId.slice(0, 512)}`);
        if (limited) return limited;
      }
      if (method === 'POST' && path === OAUTH_ROUTES.token) {
        const limited = await chargeTokenClient(deps, c);
        if (limited) return limited;
      }
      return toLibrary(c, await oauthServer(deps, issuerOf(deps, c)));
    }
    return next();
  };
}

/** The headers of the consent page: the dashboard's, with the client's redirect origin allowed as a form target. */
function consentHeaders(redirectOrigin: string | null): Record<string, string> {
  const csp = PAGE_HEADERS['Content-Security-Policy']!.replace(
    "form-action 'self'",
    // "Allow" and "Deny" end in a redirect to the client: browsers apply form-action to that redirect too.
    `form-action 'self'${redirectOrigin ? ` ${redirectOrigin}` : ''}`,
  );
  return { ...PAGE_HEADERS, 'Content-Security-Policy': csp };
}

function redirectOriginOf(uri: unknown): string | null {
  return typeof uri === 'string' && URL.canParse(uri) ? new URL(uri).origin : null;
}

function consentApp(deps: Deps) {
  const assets = loadAssets();
  const app = new Hono<DashEnv & { Bindings: HttpBindings }>();

  async function interaction(c: Context<DashEnv & { Bindings: HttpBindings }>) {
    const server = await oauthServer(deps, issuerOf(deps, c));
    const node = nodeBindings(c);
    if (!node) return null;
    try {
      const details = await server.provider.interactionDetails(node.incoming, node.outgoing);
      if (details.uid !== c.req.param('uid')) return null;
      const client = await server.provider.Client.find(String(details.params.client_id));
      if (!client) return null;
      return { server, node, details, client };
    } catch {
      return null;
    }
  }

  function expired(c: Context) {
    return c.html(
      oauthErrorPage(
        assets.version,
        'invalid_request',
        'This authorization request has expired or was opened in another browser.',
      ).value,
      400,
      PAGE_HEADERS,
    );
  }

  function requestedScopes(scope: unknown): Scope[] {
    const asked = typeof scope === 'string' ? scope.split(' ').filter(isScope) : [];
    return asked.length ? [...new Set(asked)] : [...SCOPES];
  }

  app.use('*', async (c, next) => {
    c.set('log', (c.env as { log?: DashEnv['Variables']['log'] }).log ?? deps.logger);
    await next();
  });
  // A page that acts with the session's cookie answers only under our own names (DNS rebinding).
  app.use('*', hostAllowList(deps.config));
  app.use('*', requireSession(deps));

  app.get(`${CONSENT_PATH}/:uid`, async (c) => {
    const found = await interaction(c);
    if (!found) return expired(c);
    const redirectUri = found.details.params.redirect_uri;
    const view = consentPage(assets.version, {
      uid: found.details.uid,
      csrf: c.get('csrf'),
      email: c.get('email'),
      clientName: String(found.client.clientName ?? found.client.clientId).slice(0, 200),
      redirectHost: redirectOriginOf(redirectUri) ? new URL(String(redirectUri)).host : '',
      scopes: requestedScopes(found.details.params.scope),
      mode: c.get('session').mode,
    });
    return c.html(view.value, 200, consentHeaders(redirectOriginOf(redirectUri)));
  });

  app.post(`${CONSENT_PATH}/:uid`, async (c) => {
    const found = await interaction(c);
    if (!found) return expired(c);
    const { server, node, details, client } = found;
    const form = await c.req.parseBody({ all: true });
    // The session middleware leaves multipart bodies to their handler: the token is checked here for every type.
    const submitted = c.req.header('x-csrf-token') ?? form._csrf;
    if (typeof submitted !== 'string' || !sameString(submitted, c.get('csrf'))) {
      return c.text(
        'This form has expired (missing or wrong CSRF token). Reload the page and try again.',
        403,
      );
    }
    const headers = consentHeaders(redirectOriginOf(details.params.redirect_uri));
    if (form.decision !== 'allow') {
      const to = await server.provider.interactionResult(
        node.incoming,
        node.outgoing,
        { error: 'access_denied', error_description: 'The person denied the request.' },
        { mergeWithLastSubmission: false },
      );
      return c.redirect(to, 303);
    }
    const asked = requestedScopes(details.params.scope);
    const chosen = [form.scope ?? []]
      .flat()
      .filter((s): s is Scope => typeof s === 'string' && asked.includes(s as Scope));
    const mode: Mode = form.mode === 'test' ? 'test' : 'live';
    if (!chosen.length) {
      return c.html(
        oauthErrorPage(assets.version, 'invalid_scope', 'Choose at least one permission, or Deny.').value,
        400,
        headers,
      );
    }
    const accountId = c.get('session').account_id;
    const grant = new server.provider.Grant({ accountId, clientId: client.clientId });
    grant.addResourceScope(server.resource, chosen.join(' '));
    const oidcScopes = String(details.params.scope ?? '')
      .split(' ')
      .filter((s) => s === 'offline_access' || s === 'openid');
    if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
    const grantId = await grant.save();
    await insertConnection(deps.db, {
      grant_id: grantId,
      account_id: accountId,
      mode,
      client_id: client.clientId,
      client_name: String(client.clientName ?? client.clientId).slice(0, 200),
      scopes: chosen.join(' '),
      created_at: new Date().toISOString(),
      last_used_at: null,
    });
    const to = await server.provider.interactionResult(
      node.incoming,
      node.outgoing,
      { login: { accountId }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
    return c.redirect(to, 303);
  });
  return app;
}
