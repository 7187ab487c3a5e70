import { sql } from 'kysely';
import type { Db, Mode } from '../../db/schema.ts';
import type {
  DeliveriesTable,
  DeliveryAttemptsTable,
  DeliveryStatus,
  WebhooksTable,
} from './webhooks.tables.ts';
import { webhooksDb } from './webhooks.tables.ts';

export interface Space {
  accountId: string;
  mode: Mode;
}

/** Reads and writes of the webhooks API: every query is scoped to one account and mode. */
export const webhooksRepo = {
  /** Inserts the webhook; it receives only events written after this statement (newest event seq now). */
  async insert(db: Db, row: Omit<WebhooksTable, 'after_event_seq'>) {
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

  list: (db: Db, space: Space) =>
    webhooksDb(db)
      .selectFrom('webhooks')
      .selectAll()
      .where('account_id', '=', space.accountId)
      .where('mode', '=', space.mode)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),

  find: (db: Db, space: Space, id: string) =>
    webhooksDb(db)
      .selectFrom('webhooks')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', space.accountId)
      .where('mode', '=', space.mode)
      .executeTakeFirst(),

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
