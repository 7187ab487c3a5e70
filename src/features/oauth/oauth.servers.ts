import type { Context } from 'hono';
import type { Deps } from '../../deps.ts';
import { isHttps } from '../dashboard/session.ts';
import type { OAuthServer } from './oauth.provider.ts';

/** Without PUBLIC_URL each origin the server is reached at is its own issuer; a few at most (Host is checked). */
const MAX_ISSUERS = 8;

const servers = new WeakMap<Deps, Map<string, Promise<OAuthServer>>>();

/** The issuer a request belongs to: PUBLIC_URL, else the origin it was sent to (scheme from the proxy). */
export function issuerOf(deps: Deps, c: Context): string {
  if (deps.config.publicUrl) return deps.config.publicUrl.replace(/\/+$/, '');
  const host =
    c.req.header('x-forwarded-host')?.split(',')[0]?.trim() ||
    c.req.header('host') ||
    new URL(c.req.url).host;
  return `${isHttps(c) ? 'https' : 'http'}://${host}`;
}

/** The authorization server of an issuer, built once per process and issuer. */
export function oauthServer(deps: Deps, issuer: string): Promise<OAuthServer> {
  let byIssuer = servers.get(deps);
  if (!byIssuer) {
    byIssuer = new Map();
    servers.set(deps, byIssuer);
  }
  let server = byIssuer.get(issuer);
  if (!server) {
    if (byIssuer.size >= MAX_ISSUERS) byIssuer.delete(byIssuer.keys().next().value!);
    // The library is loaded here, on first use: importing the app does not load it.
    server = import('./oauth.provider.ts').then(({ createOAuthServer }) => createOAuthServer(deps, issuer));
    server.catch(() => byIssuer.delete(issuer));
    byIssuer.set(issuer, server);
  }
  return server;
}
