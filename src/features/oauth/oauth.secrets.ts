import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Db } from '../../db/schema.ts';
import { oauthDb } from './oauth.tables.ts';

/**
 * A secret shared by every node: created once (the first node to ask wins the insert), then read back, so a
 * restart or another node signs and checks the same cookies and keys.
 */
async function sharedSecret(db: Db, name: string, create: () => string): Promise<string> {
  const odb = oauthDb(db);
  await odb
    .insertInto('oauth_secrets')
    .values({ name, value: create(), created_at: new Date().toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await odb
    .selectFrom('oauth_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.value;
}

export interface OAuthSecrets {
  cookieKey: string;
  /** The private JWK the library signs with (it issues no ID tokens here; it needs one key all the same). */
  signingJwk: Record<string, unknown>;
}

export async function loadOAuthSecrets(db: Db): Promise<OAuthSecrets> {
  const cookieKey = await sharedSecret(db, 'cookie-key', () => randomBytes(32).toString('base64url'));
  const jwk = await sharedSecret(db, 'signing-jwk', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return JSON.stringify({ ...privateKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig' });
  });
  return { cookieKey, signingJwk: JSON.parse(jwk) as Record<string, unknown> };
}
