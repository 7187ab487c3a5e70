import { createHash } from 'node:crypto';
import type { Db } from '../../db/schema.ts';
import { type OAuthDb, oauthDb } from './oauth.tables.ts';

/** The stored key of a record: its id is a bearer secret for tokens and codes, so only its hash is kept. */
export function hashOAuthId(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

/** Marks a stored client secret as a hash (a secret the library reads back is saved again unchanged). */
export const CLIENT_SECRET_PREFIX = 'sha256:';

/**
 * How a client secret is kept: its SHA-256 (the library makes secrets of 64 random bytes, so no slow hash is
 * needed). The provider hashes a presented secret with it before comparing (oauth.provider.ts).
 */
export function clientSecretHash(secret: string): string {
  return `${CLIENT_SECRET_PREFIX}${hashOAuthId(secret)}`;
}

/**
 * Ends a grant everywhere in one transaction: its connection (which every access token check joins), every
 * record it issued and the grant itself, so a token a racing request saves afterwards is dead too.
 */
export async function revokeGrant(db: OAuthDb, grantId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('oauth_connections').where('grant_id', '=', grantId).execute();
    await deleteGrantRecords(trx, grantId);
  });
}

/** Deletes every record a grant issued (codes, access and refresh tokens) and the grant itself. */
export async function deleteGrantRecords(trx: OAuthDb, grantId: string): Promise<void> {
  await trx.deleteFrom('oauth_records').where('grant_id', '=', grantId).execute();
  await trx
    .deleteFrom('oauth_records')
    .where('model', '=', 'Grant')
    .where('id_hash', '=', hashOAuthId(grantId))
    .execute();
}

/** Deletes expired records (tokens, codes, interactions); their rows are already invisible. */
export async function sweepExpiredOAuthRecords(db: Db): Promise<number> {
  const result = await oauthDb(db)
    .deleteFrom('oauth_records')
    .where('expires_at', '<=', new Date().toISOString())
    .executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
