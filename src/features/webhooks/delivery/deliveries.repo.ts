import type { Db, Dialect } from '../../../db/schema.ts';
import { webhooksDb } from '../webhooks.tables.ts';
import { type Claimed, type ClaimRequest, claimWithTargets } from './claim-deliveries.ts';
import { CHUNK, type DeliveryRow, type Outcome, PENDING } from './delivery-rows.ts';
import { recordOutcomesIn } from './record-outcomes.ts';

export { type Claimed, type ClaimRequest, spaceKey } from './claim-deliveries.ts';
export type { AttemptRecord, DeliveryLease, DeliveryRow, DeliveryTarget, Outcome } from './delivery-rows.ts';

export const deliveriesRepo = {
  /**
   * Claims up to `limit` due deliveries in one statement. A delivery is due when it is pending, its time has
   * come, it is not leased (or its lease expired: the worker died) and no earlier delivery of the same
   * webhook and note is still pending (events of one note go out in order). PostgreSQL skips rows that
   * other workers are claiming (FOR UPDATE SKIP LOCKED); SQLite has one writer at a time.
   */
  async claim(db: Db, dialect: Dialect, claim: ClaimRequest): Promise<DeliveryRow[]> {
    return (await deliveriesRepo.cycle(db, dialect, { workerId: claim.workerId, outcomes: [], claim }))
      .claimed.rows;
  },

  /**
   * One bookkeeping round of a worker: records the outcomes of finished attempts (each only while its lease
   * is held), then claims up to `claim.limit` due deliveries with their targets and logs the lost attempts of
   * leases it took over. SQLite: one transaction (one commit), outcomes first, so the claim sees the next
   * event of a note whose earlier event just finished. PostgreSQL: one statement for the outcomes and one for
   * the claim, sent at once on two connections, each its own transaction with an asynchronous commit.
   * Returns the ids whose lease was held and what was claimed.
   */
  async cycle(
    db: Db,
    dialect: Dialect,
    options: {
      workerId: string;
      outcomes: Outcome[];
      claim: Omit<ClaimRequest, 'workerId'> | null;
    },
  ): Promise<{ held: Set<string>; claimed: Claimed }> {
    const { workerId, outcomes, claim } = options;
    const record = (trx: Db) =>
      outcomes.length
        ? recordOutcomesIn(trx, dialect, workerId, outcomes)
        : Promise.resolve(new Set<string>());
    const claimNow = (trx: Db): Promise<Claimed> =>
      claim
        ? claimWithTargets(trx, dialect, { ...claim, workerId })
        : Promise.resolve({ rows: [], targets: new Map() });
    if (dialect === 'postgres') {
      // Both at once, on two connections: a round costs one round trip. The claim does not see the outcomes
      // being recorded, so the next event of a note that just finished is claimed by the next round.
      return Promise.all([record(db), claimNow(db)]).then(([held, claimed]) => ({ held, claimed }));
    }
    return db.transaction().execute(async (trx) => {
      const held = await record(trx);
      return { held, claimed: await claimNow(trx) };
    });
  },

  /**
   * Moves the leases of deliveries this worker still holds (pending, locked by it) to `lockedUntil`; rows another
   * worker took over, or whose outcome was recorded, are left alone.
   */
  async renewLeases(db: Db, renewal: { workerId: string; ids: string[]; lockedUntil: string }) {
    for (let i = 0; i < renewal.ids.length; i += CHUNK) {
      await webhooksDb(db)
        .updateTable('deliveries')
        .set({ locked_until: renewal.lockedUntil })
        .where('id', 'in', renewal.ids.slice(i, i + CHUNK))
        .where('locked_by', '=', renewal.workerId)
        .where('status', '=', PENDING)
        .execute();
    }
  },

  /** Records outcomes without claiming (see `cycle`). */
  async recordOutcomes(
    db: Db,
    dialect: Dialect,
    workerId: string,
    outcomes: Outcome[],
  ): Promise<Set<string>> {
    if (!outcomes.length) return new Set();
    return (await deliveriesRepo.cycle(db, dialect, { workerId, outcomes, claim: null })).held;
  },
};
