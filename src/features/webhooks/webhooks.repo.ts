import { sql } from 'kysely';
import { findInSpace, inSpace } from '../../db/in-space.ts';
import type { Db, Dialect } from '../../db/schema.ts';
import type { Space } from '../../lib/space.ts';
import type {
  DeliveriesTable,
  DeliveryAttemptsTable,
  DeliveryStatus,
  WebhooksTable,
} from './webhooks.tables.ts';
import { webhooksDb } from './webhooks.tables.ts';

/** Reads and writes of the webhooks API: every query is scoped to one account and mode. */
export const webhooksRepo = {
  /** Inserts the webhook; it receives only events written after this statement (newest event seq now). */
  async insert(db: Db, row: Omit<WebhooksTable, 'after_event_seq' | 'url_changed_seq'>) {
    await webhooksDb(db)
      .insertInto('webhooks')
      .values((eb) => ({
        ...row,
        after_event_seq: eb
          .selectFrom('events')
          .select((e) => e.fn.coalesce(e.fn.max<number | null>('seq'), sql<number>`0`).as('seq')),
      }))
      .execute();
  },

  /**
   * Serialises webhook creation within an account (PostgreSQL: a row lock on the account; SQLite has one writer),
   * so that two concurrent creations cannot both pass the cap.
   */
  async lockAccount(db: Db, dialect: Dialect, accountId: string) {
    if (dialect !== 'postgres') return;
    await sql`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`.execute(db);
  },

  /** Webhooks of the space, up to `limit` (enough to tell whether the cap is reached). */
  async count(db: Db, space: Space, limit: number): Promise<number> {
    const rows = await webhooksDb(db)
      .selectFrom('webhooks')
      .select('id')
      .where(inSpace(space))
      .limit(limit)
      .execute();
    return rows.length;
  },

  /** Records that the URL changes now: events written so far were meant for the previous URL. */
  markUrlChanged: (db: Db, id: string) =>
    webhooksDb(db)
      .updateTable('webhooks')
      .set((eb) => ({
        url_changed_seq: eb
          .selectFrom('events')
          .select((e) => e.fn.coalesce(e.fn.max<number | null>('seq'), sql<number>`0`).as('seq')),
      }))
      .where('id', '=', id)
      .execute(),

  /**
   * Cancels the deliveries still waiting whose event type is one of `types` (not those in flight). Used when the
   * URL changes on behalf of a key that may not read those events.
   */
  cancelWaitingOfTypes: (db: Db, webhookId: string, types: string[], now: string) =>
    types.length === 0
      ? Promise.resolve()
      : webhooksDb(db)
          .updateTable('deliveries')
          .set({ status: 'cancelled', next_attempt_at: null, completed_at: now, updated_at: now })
          .where('webhook_id', '=', webhookId)
          .where('status', '=', 'pending')
          .where('event_type', 'in', types)
          .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
          .execute()
          .then(() => undefined),

  list: (db: Db, space: Space) =>
    webhooksDb(db)
      .selectFrom('webhooks')
      .selectAll()
      .where(inSpace(space))
      .orderBy('created_at')
      .orderBy('id')
      .execute(),

  find: (db: Db, space: Space, id: string) => findInSpace(webhooksDb(db), 'webhooks', space, id),

  update: (
    db: Db,
    id: string,
    patch: Partial<
      Pick<
        WebhooksTable,
        | 'url'
        | 'events'
        | 'active'
        | 'secret'
        | 'previous_secret'
        | 'previous_secret_expires_at'
        | 'updated_at'
      >
    >,
  ) => webhooksDb(db).updateTable('webhooks').set(patch).where('id', '=', id).execute(),

  /** Deletes the webhook; its deliveries and their attempt log go with it (ON DELETE CASCADE). */
  delete: (db: Db, id: string) => webhooksDb(db).deleteFrom('webhooks').where('id', '=', id).execute(),

  /** Cancels the deliveries still waiting (not those in flight: their outcome is recorded when it comes). */
  cancelWaiting: (db: Db, webhookId: string, now: string) =>
    webhooksDb(db)
      .updateTable('deliveries')
      .set({ status: 'cancelled', next_attempt_at: null, completed_at: now, updated_at: now })
      .where('webhook_id', '=', webhookId)
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .execute(),

  async listDeliveries(
    db: Db,
    webhookId: string,
    filters: { status?: DeliveryStatus; eventId?: string },
    page: { limit: number; offset: number },
  ) {
    let base = webhooksDb(db).selectFrom('deliveries').where('webhook_id', '=', webhookId);
    if (filters.status) base = base.where('status', '=', filters.status);
    if (filters.eventId) base = base.where('event_id', '=', filters.eventId);
    const [rows, total] = await Promise.all([
      base
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('event_seq', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  },

  attemptsOf: async (db: Db, deliveryIds: string[]): Promise<DeliveryAttemptsTable[]> =>
    deliveryIds.length
      ? webhooksDb(db)
          .selectFrom('delivery_attempts')
          .selectAll()
          .where('delivery_id', 'in', deliveryIds)
          .orderBy('delivery_id')
          .orderBy('attempt')
          .execute()
      : [],

  findDelivery: (db: Db, webhookId: string, id: string) =>
    webhooksDb(db)
      .selectFrom('deliveries')
      .selectAll()
      .where('id', '=', id)
      .where('webhook_id', '=', webhookId)
      .executeTakeFirst(),

  insertDelivery: (db: Db, row: DeliveriesTable) =>
    webhooksDb(db).insertInto('deliveries').values(row).execute(),
};
