import type { ApiKeysTable, Mode } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { nowIso, parseDateTime, toIso } from '../../lib/time.ts';
import { apiKeysRepo } from './api-keys.repo.ts';
import { generateApiKey, hashApiKey, hashesEqual, keyStart, parseApiKey } from './key-format.ts';
import { type Actor, isScope, SCOPES, type Scope } from './scopes.ts';

/** A key as listed: never the key itself, never its hash. */
export interface ApiKeyView {
  id: string;
  account_id: string;
  mode: Mode;
  name?: string;
  start: string;
  scopes: Scope[];
  created_at: string;
  expires_at?: string;
  revoked_at?: string;
  last_used_at?: string;
}

function toView(row: ApiKeysTable): ApiKeyView {
  return {
    id: row.id,
    account_id: row.account_id,
    mode: row.mode,
    ...(row.name ? { name: row.name } : {}),
    start: row.key_start,
    scopes: JSON.parse(row.scopes) as Scope[],
    created_at: row.created_at,
    ...(row.expires_at ? { expires_at: row.expires_at } : {}),
    ...(row.revoked_at ? { revoked_at: row.revoked_at } : {}),
    ...(row.last_used_at ? { last_used_at: row.last_used_at } : {}),
  };
}

/** Creates a key and returns it with the only copy of the secret; store only its hash. */
export async function createApiKey(
  deps: Deps,
  input: { accountId: string; mode: Mode; scopes?: string[]; name?: string; expiresAt?: string },
): Promise<ApiKeyView & { key: string }> {
  const scopes = input.scopes?.length ? [...new Set(input.scopes.map((s) => s.trim()))] : [...SCOPES];
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) {
    throw new AppError(
      'parameter_invalid',
      `Unknown scope(s): ${unknown.join(', ')}. Valid: ${SCOPES.join(', ')}.`,
      {
        param: 'scopes',
      },
    );
  }
  let expiresAt: string | null = null;
  if (input.expiresAt) {
    const date = parseDateTime(input.expiresAt);
    if (!date) {
      throw new AppError('parameter_invalid', 'expires_at must be an ISO 8601 date-time with a time zone.', {
        param: 'expires_at',
      });
    }
    expiresAt = toIso(date);
  }
  const key = generateApiKey(input.mode);
  const row: ApiKeysTable = {
    id: newId('apiKey'),
    account_id: input.accountId,
    mode: input.mode,
    name: input.name ?? null,
    key_hash: hashApiKey(key),
    key_start: keyStart(key),
    scopes: JSON.stringify(scopes),
    created_at: nowIso(),
    expires_at: expiresAt,
    revoked_at: null,
    last_used_at: null,
  };
  await apiKeysRepo.insert(deps.db, row);
  return { ...toView(row), key };
}

/** The account's keys, both modes. */
export async function listApiKeys(deps: Deps, accountId: string): Promise<ApiKeyView[]> {
  return (await apiKeysRepo.listByAccount(deps.db, accountId)).map(toView);
}

/** Revokes a key at once; revoking twice is harmless. */
export async function revokeApiKey(deps: Deps, keyId: string): Promise<ApiKeyView> {
  const { db } = deps;
  const row = await apiKeysRepo.findById(db, keyId);
  if (!row) throw new AppError('resource_not_found', `No API key with id '${keyId}'.`, { param: 'key_id' });
  if (!row.revoked_at) await apiKeysRepo.revoke(db, keyId, nowIso());
  return toView((await apiKeysRepo.findById(db, keyId))!);
}

const TOUCH_INTERVAL_MS = 60_000;

/**
 * The actor of an Authorization header value, or an AppError with the 401 code that fits.
 * last_used_at is written at most once a minute per key (checked on the stored value, so across processes), without
 * holding up the request.
 */
export async function verifyApiKey(deps: Deps, authorization: string | undefined): Promise<Actor> {
  if (!authorization?.trim()) {
    throw new AppError(
      'api_key_missing',
      'No API key provided. Send it as "Authorization: Bearer <API_KEY>".',
    );
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim());
  const key = m?.[1];
  if (!key || !parseApiKey(key)) {
    throw new AppError(
      'api_key_invalid',
      'Malformed API key. Send "Authorization: Bearer svc_sk_live_…" or "svc_sk_test_…".',
    );
  }
  const hash = hashApiKey(key);
  const row = await apiKeysRepo.findByHash(deps.db, hash);
  if (!row || !hashesEqual(row.key_hash, hash))
    throw new AppError('api_key_invalid', 'Invalid API key provided.');
  if (row.revoked_at) throw new AppError('api_key_revoked', 'This API key has been revoked.');
  const now = Date.now();
  if (row.expires_at && Date.parse(row.expires_at) <= now) {
    throw new AppError('api_key_expired', `This API key expired at ${row.expires_at}.`);
  }
  if (!row.last_used_at || now - Date.parse(row.last_used_at) >= TOUCH_INTERVAL_MS) {
    // Best effort, not waited for: a request that only reads must not wait for (or fail on) the database's
    // write lock held by another writer; a touch that fails is made by a later request.
    void apiKeysRepo.touch(deps.db, row.id, toIso(now)).catch(() => {});
  }
  return {
    accountId: row.account_id,
    mode: row.mode,
    scopes: new Set(JSON.parse(row.scopes) as Scope[]),
    keyId: row.id,
  };
}
