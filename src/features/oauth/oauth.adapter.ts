import { type Adapter, type AdapterPayload, errors } from 'oidc-provider';
import type { Db } from '../../db/schema.ts';
import { CLIENT_SECRET_PREFIX, clientSecretHash, hashOAuthId, revokeGrant } from './oauth.records.ts';
import { type OAuthDb, oauthDb } from './oauth.tables.ts';

/** A registration nobody consents to within 30 days lapses (and is swept); the first consent makes it permanent. */
export const UNUSED_CLIENT_TTL_MS = 30 * 24 * 3600 * 1000;

/** Records the library looks up by the id they carry inside (`jti`), which is not stored. */
const CLIENT_MODEL = 'Client';
const GRANT_MODEL = 'Grant';

/**
 * The oidc-provider storage adapter over our database (both dialects). Records are keyed by (model, SHA-256 of
 * the id); grant members carry `grant_id` so that revoking a grant (reuse of a refresh token or a code,
 * Disconnect) deletes every token it issued in one statement. Expired records are invisible and swept by
 * `sweepExpiredOAuthRecords`.
 */
export class DbAdapter implements Adapter {
  private readonly db: OAuthDb;

  constructor(
    db: Db,
    private readonly model: string,
  ) {
    this.db = oauthDb(db);
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const { jti: _jti, ...rest } = payload as AdapterPayload & { jti?: string };
    if (this.model === CLIENT_MODEL && typeof rest.client_secret === 'string') {
      // The library saves a client again with the secret it read back: that one is a hash already.
      if (!rest.client_secret.startsWith(CLIENT_SECRET_PREFIX))
        rest.client_secret = clientSecretHash(rest.client_secret);
    }
    const row = {
      model: this.model,
      id_hash: hashOAuthId(id),
      grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
      uid: typeof payload.uid === 'string' ? payload.uid : null,
      payload: JSON.stringify(rest),
      expires_at: expiresIn
        ? new Date(Date.now() + expiresIn * 1000).toISOString()
        : this.model === CLIENT_MODEL
          ? new Date(Date.now() + UNUSED_CLIENT_TTL_MS).toISOString()
          : null,
      consumed_at: null,
    };
    await this.db
      .insertInto('oauth_records')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['model', 'id_hash']).doUpdateSet({
          grant_id: row.grant_id,
          uid: row.uid,
          payload: row.payload,
          // A client saved again keeps its lapse date (cleared by its first connection).
          ...(this.model === CLIENT_MODEL ? {} : { expires_at: row.expires_at }),
        }),
      )
      .execute();
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    if (typeof id !== 'string' || id === '') return undefined;
    const row = await this.db
      .selectFrom('oauth_records')
      .select(['payload', 'expires_at', 'consumed_at'])
      .where('model', '=', this.model)
      .where('id_hash', '=', hashOAuthId(id))
      .executeTakeFirst();
    return row ? this.toPayload(row, id) : undefined;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const row = await this.db
      .selectFrom('oauth_records')
      .select(['payload', 'expires_at', 'consumed_at'])
      .where('model', '=', this.model)
      .where('uid', '=', uid)
      .executeTakeFirst();
    if (!row) return undefined;
    const payload = this.toPayload(row, undefined);
    return payload;
  }

  async findByUserCode(): Promise<AdapterPayload | undefined> {
    // The device flow is not enabled: no record has a user code.
    return undefined;
  }

  /**
   * Marks a code or refresh token used in one conditional statement, so of two simultaneous redemptions exactly
   * one wins; the loser is a replay and revokes the whole grant, as a later reuse would.
   */
  async consume(id: string): Promise<void> {
    const row = await this.db
      .selectFrom('oauth_records')
      .select(['payload', 'grant_id'])
      .where('model', '=', this.model)
      .where('id_hash', '=', hashOAuthId(id))
      .executeTakeFirst();
    if (!row) throw new errors.InvalidGrant('grant source not found');
    const payload = { ...(JSON.parse(row.payload) as object), consumed: Math.floor(Date.now() / 1000) };
    const updated = await this.db
      .updateTable('oauth_records')
      .set({ consumed_at: new Date().toISOString(), payload: JSON.stringify(payload) })
      .where('model', '=', this.model)
      .where('id_hash', '=', hashOAuthId(id))
      .where('consumed_at', 'is', null)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 1) return;
    if (row.grant_id) await revokeGrant(this.db, row.grant_id);
    throw new errors.InvalidGrant('already used');
  }

  async destroy(id: string): Promise<void> {
    // A grant revoked by the library (replay, revocation of a refresh token) takes Minutes' connection with it.
    if (this.model === GRANT_MODEL) return revokeGrant(this.db, id);
    await this.db
      .deleteFrom('oauth_records')
      .where('model', '=', this.model)
      .where('id_hash', '=', hashOAuthId(id))
      .execute();
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db.deleteFrom('oauth_records').where('grant_id', '=', grantId).execute();
  }

  private toPayload(
    row: { payload: string; expires_at: string | null },
    id: string | undefined,
  ): AdapterPayload | undefined {
    if (row.expires_at && row.expires_at <= new Date().toISOString()) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    return id === undefined || this.model === CLIENT_MODEL ? payload : { ...payload, jti: id };
  }
}
