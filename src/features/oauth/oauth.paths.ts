// Where the authorization server answers, without loading it: the app routes these paths and the OpenAPI document
// names them at startup, while the library itself is loaded on the first OAuth request (oauth.servers.ts).

/** Where the library's endpoints live under the issuer. */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  end_session: '/oauth/session/end',
} as const;

/** The consent page of an interaction. */
export const CONSENT_PATH = '/oauth/consent';

/** The protected resource of an issuer: the MCP endpoint. */
export function resourceOf(issuer: string): string {
  return `${issuer}/mcp`;
}
