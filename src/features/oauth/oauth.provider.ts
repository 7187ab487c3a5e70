import type { IncomingMessage, ServerResponse } from 'node:http';
import Provider, {
  type Configuration,
  errors,
  interactionPolicy,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import type { Deps } from '../../deps.ts';
import { isScope, SCOPES } from '../api-keys/scopes.ts';
import { sameString } from '../users/tokens.ts';
import { checkUrlStatically } from '../webhooks/outbound/guarded-request.ts';
import { outboundPolicy } from '../webhooks/webhooks.service.ts';
import { DbAdapter } from './oauth.adapter.ts';
import { guardedMetadataFetch, METADATA_DOCUMENT_MAX_BYTES } from './oauth.metadata-fetch.ts';
import { renderOAuthErrorPage } from './oauth.pages.ts';
import { CONSENT_PATH, OAUTH_ROUTES, resourceOf } from './oauth.paths.ts';
import { clientSecretHash } from './oauth.records.ts';
import { loadOAuthSecrets } from './oauth.secrets.ts';

/** Access tokens live an hour; refresh tokens rotate on every use and lapse after 30 idle days. */
export const ACCESS_TOKEN_TTL_S = 3600;
const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;
/** A code is single-use and short-lived. */
const CODE_TTL_S = 60;
/** Time to sign in and decide on the consent page. */
const INTERACTION_TTL_S = 15 * 60;

/** Metadata that would make the library fetch a URL of the client's choosing (or needs features that are off). */
const REFUSED_CLIENT_METADATA = ['sector_identifier_uri', 'jwks_uri', 'jwks'] as const;

/** Bounds on what one registration may store (anyone may register). */
export const REGISTRATION_LIMITS = { clientNameChars: 200, redirectUris: 10, metadataBytes: 8192 } as const;

function checkRegistrationSize(metadata: Record<string, unknown>): void {
  const name = metadata.client_name;
  if (typeof name === 'string' && name.length > REGISTRATION_LIMITS.clientNameChars) {
    throw new errors.InvalidClientMetadata(
      `client_name must be at most ${REGISTRATION_LIMITS.clientNameChars} characters`,
    );
  }
  const uris = metadata.redirect_uris;
  if (Array.isArray(uris) && uris.length > REGISTRATION_LIMITS.redirectUris) {
    throw new errors.InvalidClientMetadata(
      `redirect_uris must have at most ${REGISTRATION_LIMITS.redirectUris} members`,
    );
  }
  if (Buffer.byteLength(JSON.stringify(metadata)) > REGISTRATION_LIMITS.metadataBytes) {
    throw new errors.InvalidClientMetadata(
      `the client metadata must be at most ${REGISTRATION_LIMITS.metadataBytes} bytes`,
    );
  }
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const LOOPBACK_IPS = new Set(['127.0.0.1', '[::1]']);

/** Two `http` URIs on the same loopback IP (not `localhost`, RFC 8252 8.3) that differ at most in their port. */
export function sameLoopbackButPort(registered: string, requested: unknown): boolean {
  if (typeof requested !== 'string' || !URL.canParse(registered) || !URL.canParse(requested)) return false;
  const a = new URL(registered);
  const b = new URL(requested);
  if (a.protocol !== 'http:' || b.protocol !== 'http:' || !LOOPBACK_IPS.has(a.hostname)) return false;
  if (b.username || b.password || b.hash) return false;
  a.port = '';
  b.port = '';
  return a.href === b.href;
}

/** RFC 8252 and the contract: exact `https` URIs, or `http` on a loopback host (any port). */
export function redirectUriProblem(uri: unknown): string | null {
  if (typeof uri !== 'string' || !URL.canParse(uri)) return 'must be an absolute URL';
  const url = new URL(uri);
  if (url.hash) return 'must not contain a fragment';
  if (url.username || url.password) return 'must not contain credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'must use https, or http on a loopback host (localhost, 127.0.0.1, [::1])';
}

/**
 * The library's prompts with one change to consent: it is asked once per authorization, and the scopes the person
 * unticked do not send them back to the page (the token gets what the grant holds, a narrowed set included).
 */
function consentPolicy() {
  const policy = interactionPolicy.base();
  const consent = policy.get('consent')!;
  consent.checks.remove('op_scopes_missing');
  consent.checks.remove('rs_scopes_missing');
  consent.checks.add(
    new interactionPolicy.Check('grant_missing', 'the person has not decided yet', (ctx) =>
      typeof ctx.oidc.result?.consent?.grantId === 'string'
        ? interactionPolicy.Check.NO_NEED_TO_PROMPT
        : interactionPolicy.Check.REQUEST_PROMPT,
    ),
  );
  return policy;
}

export interface OAuthServer {
  issuer: string;
  resource: string;
  provider: Provider;
  /** Hands a request to the library (node request and response of @hono/node-server). */
  callback: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

/** Scopes a request names that this server does not have (OpenID's own two are the library's). */
export function unknownScopes(scope: unknown): string[] {
  const names = typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [];
  return names.filter((name) => !isScope(name) && name !== 'openid' && name !== 'offline_access');
}

/**
 * Builds the authorization server (oidc-provider) of one issuer over our database: authorization code with
 * PKCE S256 only, dynamic registration, Client ID Metadata Documents fetched under the webhooks' outbound
 * policy, opaque access tokens bound to `<issuer>/mcp`, rotating refresh tokens (a reused one revokes the grant,
 * as does a replayed code), RFC 7009 revocation. Sign-in and consent are Minutes' own pages (oauth.routes.ts).
 */
export async function createOAuthServer(deps: Deps, issuer: string): Promise<OAuthServer> {
  const secrets = await loadOAuthSecrets(deps.db);
  const resource = resourceOf(issuer);
  const policy = outboundPolicy(deps.config);
  const scope = SCOPES.join(' ');

  const configuration: Configuration = {
    adapter: (name: string) => new DbAdapter(deps.db, name),
    clients: [],
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    jwks: { keys: [secrets.signingJwk as never] },
    cookies: { keys: [secrets.cookieKey] },
    // Our scopes are listed too: clients register with a `scope` naming them (the MCP SDK sends scopes_supported).
    scopes: ['openid', 'offline_access', ...SCOPES],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    clientAuthMethods: ['none', 'client_secret_post', 'client_secret_basic'],
    routes: OAUTH_ROUTES,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: CODE_TTL_S,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Interaction: INTERACTION_TTL_S,
      Session: 24 * 3600,
      // A connection lasts until it is disconnected or its refresh token goes unused for 30 days.
      Grant: 365 * 24 * 3600,
    },
    // Refresh tokens always rotate; a refresh naming another resource is refused before the token is used up.
    rotateRefreshToken: (ctx) => {
      const asked = ctx.oidc.params?.resource;
      for (const one of [asked ?? []].flat()) {
        if (one !== resource)
          throw new errors.InvalidTarget(`the only resource of this server is ${resource}`);
      }
      return true;
    },
    // A refresh token whenever the client registered the grant type (MCP clients do not ask for offline_access).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Every authorization shows the consent page (the person picks the data space and may narrow the scopes);
    // the grant is the one that page just made, never an earlier one.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return typeof grantId === 'string' ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    interactions: {
      policy: consentPolicy(),
      url: (_ctx, interaction) => `${CONSENT_PATH}/${interaction.uid}`,
    },
    // Validated after the client and its redirect URI are, so the library sends invalid_scope to that URI
    // (RFC 6749 4.1.2.1) before anyone signs in; an unverified redirect URI gets our own error page instead.
    extraParams: {
      scope: async (_ctx, value) => {
        const unknown = unknownScopes(value);
        if (unknown.length) {
          const named = unknown.join(' ').slice(0, 200);
          throw new errors.InvalidScope(`unknown scope: ${named}`, named);
        }
      },
    },
    extraClientMetadata: {
      // request_uris is listed so that it is refused rather than silently dropped.
      properties: ['redirect_uris', 'request_uris'],
      validator: (_ctx, key, value, metadata) => {
        if (key === 'request_uris' && value !== undefined) {
          throw new errors.InvalidClientMetadata('request_uris is not supported by this server');
        }
        if (key !== 'redirect_uris') return;
        checkRegistrationSize(metadata as Record<string, unknown>);
        for (const field of REFUSED_CLIENT_METADATA) {
          if ((metadata as Record<string, unknown>)[field] !== undefined) {
            throw new errors.InvalidClientMetadata(`${field} is not supported by this server`);
          }
        }
        // Not an array of strings: the library's own validation names the problem.
        if (!Array.isArray(value) || value.some((uri) => typeof uri !== 'string')) return;
        for (const uri of value) {
          const problem = redirectUriProblem(uri);
          if (problem)
            throw new errors.InvalidRedirectUri(`redirect_uris: '${String(uri).slice(0, 200)}' ${problem}`);
        }
      },
    },
    features: {
      devInteractions: { enabled: false },
      // Bearer tokens only: /mcp takes `Authorization: Bearer`, which carries no DPoP proof.
      dPoP: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      registration: { enabled: true },
      // Not routed by Minutes, so not offered.
      pushedAuthorizationRequests: { enabled: false },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (indicator !== resource) {
            throw new errors.InvalidTarget(`the only resource of this server is ${resource}`);
          }
          return {
            scope,
            audience: resource,
            accessTokenFormat: 'opaque',
            accessTokenTTL: ACCESS_TOKEN_TTL_S,
          };
        },
      },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        // A URL the webhooks' outbound policy refuses outright is not fetched; its addresses are vetted by `fetch`.
        allowFetch: async (_ctx: KoaContextWithOIDC, clientId: string) =>
          checkUrlStatically(clientId, policy) === null,
      } as never,
    },
    // The library's only outbound request is a Client ID Metadata Document (jwks_uri and sector_identifier_uri
    // are refused at registration): it goes through the outbound guard.
    fetch: guardedMetadataFetch(deps) as never,
    fetchResponseBodyLimits: { 'client_id metadata document': METADATA_DOCUMENT_MAX_BYTES },
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = renderOAuthErrorPage(out.error, out.error_description);
    },
  };
  const provider = new Provider(issuer, configuration);
  // RFC 8252 7.3: a loopback IP redirect URI matches whatever port the native app listens on, for every client.
  const redirectUriAllowed = provider.Client.prototype.redirectUriAllowed;
  provider.Client.prototype.redirectUriAllowed = function (this: { redirectUris?: string[] }, value: string) {
    return (
      redirectUriAllowed.call(this, value) ||
      (this.redirectUris ?? []).some((registered) => sameLoopbackButPort(registered, value))
    );
  };
  // An authorization request without a scope asks for the scopes the client registered, else every scope: the
  // consent page offers them to narrow.
  provider.use(async (ctx, next) => {
    if (
      ctx.path === OAUTH_ROUTES.authorization &&
      ctx.method === 'GET' &&
      !String(ctx.query.scope ?? '').trim()
    ) {
      const clientId = ctx.query.client_id;
      const client =
        typeof clientId === 'string'
          ? await provider.Client.find(clientId).catch(() => undefined)
          : undefined;
      ctx.query = { ...ctx.query, scope: client?.scope ?? scope };
    }
    await next();
  });
  // The contract's only response mode is `query` (fragment and form_post would carry codes where no client looks).
  provider.Client.prototype.responseModeAllowed = (responseMode: string | undefined) =>
    responseMode === undefined || responseMode === 'query';
  // Stored client secrets are hashes (see clientSecretHash): the presented one is hashed, then compared in
  // constant time.
  provider.Client.prototype.compareClientSecret = async function (this: { clientSecret?: string }, actual) {
    const stored = this.clientSecret;
    return typeof stored === 'string' && typeof actual === 'string'
      ? sameString(stored, clientSecretHash(actual))
      : false;
  };
  provider.proxy = true;
  const handler = provider.callback();
  const callback = (req: IncomingMessage, res: ServerResponse) =>
    new Promise<void>((resolve) => {
      res.once('close', resolve);
      res.once('finish', resolve);
      handler(req, res);
    });
  return { issuer, resource, provider, callback };
}
