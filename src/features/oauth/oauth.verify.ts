import type { Context } from 'hono';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../lib/errors.ts';
import { verifyApiKey } from '../api-keys/api-keys.service.ts';
import { type Actor, isScope, type Scope } from '../api-keys/scopes.ts';
import { touchConnection } from './oauth.connections.ts';
import { resourceOf } from './oauth.paths.ts';
import { hashOAuthId } from './oauth.records.ts';
import { issuerOf } from './oauth.servers.ts';
import { oauthDb } from './oauth.tables.ts';

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

interface StoredAccessToken {
  aud?: string | string[];
  exp?: number;
  scope?: string;
  clientId?: string;
  jkt?: string;
  'x5t#S256'?: string;
}

/**
 * The actor of a valid access token for this issuer's /mcp, or null. One statement reads the token's record (by
 * the SHA-256 of the token, as the library stored it) joined with its grant's connection, so a key and a token
 * cost the same round trip; the checks are the library's for an opaque token: not expired, bound to this resource,
 * issued to the grant's client, not sender-constrained (those need a proof a Bearer header cannot carry).
 */
export async function actorOfAccessToken(deps: Deps, issuer: string, token: string): Promise<Actor | null> {
  const row = await oauthDb(deps.db)
    .selectFrom('oauth_records as r')
    .innerJoin('oauth_connections as c', 'c.grant_id', 'r.grant_id')
    .select([
      'r.payload',
      'r.expires_at',
      'c.grant_id',
      'c.account_id',
      'c.mode',
      'c.client_id',
      'c.scopes',
      'c.last_used_at',
    ])
    .where('r.model', '=', 'AccessToken')
    .where('r.id_hash', '=', hashOAuthId(token))
    .executeTakeFirst();
  if (!row) return null;
  const now = Date.now();
  if (row.expires_at && Date.parse(row.expires_at) <= now) return null;
  const stored = JSON.parse(row.payload) as StoredAccessToken;
  if (typeof stored.exp !== 'number' || stored.exp * 1000 <= now) return null;
  const resource = resourceOf(issuer);
  const audience = stored.aud;
  if (audience !== resource && !(Array.isArray(audience) && audience.includes(resource))) return null;
  if (stored.clientId !== row.client_id || stored.jkt || stored['x5t#S256']) return null;
  const granted = new Set(row.scopes.split(' '));
  const scopes = new Set<Scope>(
    (stored.scope ?? '').split(' ').filter((s): s is Scope => isScope(s) && granted.has(s)),
  );
  // last_used_at moves at most once a minute: judged on the row just read, so most calls write nothing.
  if (!row.last_used_at || Date.parse(row.last_used_at) < now - 60_000) {
    void touchConnection(deps.db, row.grant_id).catch((err: unknown) =>
      deps.logger.warn({ err }, 'could not record the use of an OAuth grant'),
    );
  }
  return { accountId: row.account_id, mode: row.mode, scopes, keyId: `grant:${row.grant_id}` };
}
