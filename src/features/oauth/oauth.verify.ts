import type { Context } from 'hono';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../lib/errors.ts';
import { verifyApiKey } from '../api-keys/api-keys.service.ts';
import { type Actor, isScope, type Scope } from '../api-keys/scopes.ts';
import { findConnection, touchConnection } from './oauth.connections.ts';
import { issuerOf, oauthServer } from './oauth.servers.ts';

/** RFC 9728: where a client that got a 401 from /mcp finds how to obtain a token. */
export function resourceMetadataUrl(issuer: string): string {
  return `${issuer}/.well-known/oauth-protected-resource/mcp`;
}

function challenge(issuer: string, error?: string): Record<string, string> {
  const parts = [`Bearer resource_metadata="${resourceMetadataUrl(issuer)}"`];
  if (error) parts.push(`error="${error}"`);
  return { 'WWW-Authenticate': parts.join(', ') };
}

const API_KEY_PREFIX = /^Bearer\s+svc_sk_/i;

/**
 * The actor of an /mcp request: an API key exactly as on /v1, or an access token of Minutes' authorization server
 * (bound to `<issuer>/mcp`), acting for its grant's account, in the grant's data space, with the scopes granted
 * (and still held by the grant). Every 401 carries the RFC 9728 `resource_metadata` challenge.
 */
export async function verifyMcpCaller(deps: Deps, c: Context): Promise<Actor> {
  const issuer = issuerOf(deps, c);
  const authorization = c.req.header('authorization');
  try {
    if (!authorization?.trim() || API_KEY_PREFIX.test(authorization.trim())) {
      return await verifyApiKey(deps, authorization);
    }
  } catch (err) {
    if (err instanceof AppError) {
      throw new AppError(err.code, err.message, {
        ...err.details,
        headers: challenge(issuer, authorization?.trim() ? 'invalid_token' : undefined),
      });
    }
    throw err;
  }
  const token = /^Bearer\s+([A-Za-z0-9._~+/=-]{1,512})\s*$/i.exec(authorization.trim())?.[1];
  const actor = token ? await actorOfAccessToken(deps, issuer, token) : null;
  if (!actor) {
    throw new AppError(
      'api_key_invalid',
      'The access token is unknown, expired or revoked. Get a new one from the authorization server, or send an API key.',
      { headers: challenge(issuer, 'invalid_token') },
    );
  }
  return actor;
}

/** The actor of a valid access token for this issuer's /mcp, or null. */
export async function actorOfAccessToken(deps: Deps, issuer: string, token: string): Promise<Actor | null> {
  const server = await oauthServer(deps, issuer);
  const accessToken = await server.provider.AccessToken.find(token);
  if (!accessToken || accessToken.isExpired) return null;
  const audience = accessToken.aud;
  if (audience !== server.resource && !(Array.isArray(audience) && audience.includes(server.resource)))
    return null;
  if (!accessToken.grantId) return null;
  const connection = await findConnection(deps.db, accessToken.grantId);
  if (!connection) return null;
  const granted = new Set(connection.scopes.split(' '));
  const scopes = new Set<Scope>(
    (accessToken.scope ?? '').split(' ').filter((s): s is Scope => isScope(s) && granted.has(s)),
  );
  void touchConnection(deps.db, connection.grant_id).catch((err: unknown) =>
    deps.logger.warn({ err }, 'could not record the use of an OAuth grant'),
  );
  return {
    accountId: connection.account_id,
    mode: connection.mode,
    scopes,
    keyId: `grant:${connection.grant_id}`,
  };
}
