import { newId } from '../../../lib/ids.ts';
import type { DeliveriesTable } from '../webhooks.tables.ts';

/** What a delivery is of: an event (by id and sequence) to one webhook of the event's data space. */
export type DeliveryOf = Pick<
  DeliveriesTable,
  'account_id' | 'mode' | 'webhook_id' | 'event_id' | 'event_seq' | 'event_type'
>;

/**
 * The one way a delivery row is made (fan-out, redelivery, a test send): pending, due at `now`, no attempt yet,
 * in no order group and a redelivery of nothing, unless `overrides` says otherwise.
 */
export function newDeliveryRow(
  of: DeliveryOf,
  now: string,
  overrides: Partial<Omit<DeliveriesTable, keyof DeliveryOf>> = {},
): DeliveriesTable {
  return {
    id: newId('delivery'),
    ...of,
    order_key: null,
    redelivery_of: null,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_by: null,
    locked_until: null,
    lease_lost: 0,
    created_at: now,
    updated_at: now,
    completed_at: null,
    ...overrides,
  };
}
