import { type ExpressionBuilder, type Selectable, sql } from 'kysely';
import { findInSpace } from '../../db/in-space.ts';
import type { Database, Db, ImportsTable } from '../../db/schema.ts';
import type { Space } from '../../lib/space.ts';

export type ImportRow = Selectable<ImportsTable>;

/** The most failed items an import lists (its `failed` count is exact whatever it is). */
export const MAX_LISTED_ERRORS = 1000;

/** What one file of an export added to an import's counts, with the items that failed. */
export interface FileTally {
  total: number;
  imported: number;
  skipped: number;
  failed: number;
  source: string | null;
  errors: { item: string; message: string }[];
}

/** An update's guard: the import is still at the step this job read, and running (else the job is stale). */
const stillAt = (row: ImportRow) => (eb: ExpressionBuilder<Database, 'imports'>) =>
  eb.and([eb('id', '=', row.id), eb('step', '=', row.step), eb('status', '=', 'running')]);

/** Failed items from `first` on; a position written before (a job run twice) is kept. */
function insertErrors(db: Db, importId: string, first: number, errors: { item: string; message: string }[]) {
  return db
    .insertInto('import_errors')
    .values(errors.map((e, i) => ({ import_id: importId, position: first + i, ...e })))
    .onConflict((oc) => oc.columns(['import_id', 'position']).doNothing())
    .execute();
}

/** Reads and writes of the `imports` table and its failed items. */
export const importRunsRepo = {
  insert: (db: Db, row: ImportsTable) => db.insertInto('imports').values(row).execute(),

  byId: (db: Db, id: string) => db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirst(),

  /** The import of this space, if it is one (another account's or the other mode's id finds nothing). */
  inSpace: (db: Db, space: Space, id: string) => findInSpace(db, 'imports', space, id),

  errorsOf: (db: Db, id: string) =>
    db
      .selectFrom('import_errors')
      .select(['item', 'message'])
      .where('import_id', '=', id)
      .orderBy('position')
      .limit(MAX_LISTED_ERRORS)
      .execute(),

  /**
   * Counts one file as done, with its failed items, while the import is at this step: false when another job
   * has taken the import further (this one is stale and must stop).
   */
  async countFile(db: Db, row: ImportRow, tally: FileTally, now: string): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('imports')
        .set((eb) => ({
          files_done: eb('files_done', '+', 1),
          total: eb('total', '+', tally.total),
          imported: eb('imported', '+', tally.imported),
          skipped: eb('skipped', '+', tally.skipped),
          failed: eb('failed', '+', tally.failed),
          source: eb.fn.coalesce('source', eb.val(tally.source)),
          updated_at: now,
        }))
        .where(stillAt(row))
        .returning('failed')
        .executeTakeFirst();
      if (!result) return false;
      const first = result.failed - tally.failed;
      if (tally.errors.length > 0) {
        await insertErrors(trx, row.id, first, tally.errors);
      }
      return true;
    });
  },

  /** Moves the import to the next step (the caller enqueues that step's job in the same transaction). */
  async advance(db: Db, row: ImportRow, patch: { total?: number }, now: string): Promise<boolean> {
    const result = await db
      .updateTable('imports')
      .set((eb) => ({ step: eb('step', '+', 1), updated_at: now, ...patch }))
      .where(stillAt(row))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  /** Ends the import, with an error naming the export when it stopped before its end. */
  async finish(
    db: Db,
    row: ImportRow,
    status: 'completed' | 'failed',
    now: string,
    error?: { item: string; message: string },
  ): Promise<boolean> {
    const result = await db
      .updateTable('imports')
      .set((eb) => ({
        status,
        finished_at: now,
        updated_at: now,
        // Exact at the end: the estimate made from the archive's listing is replaced by what was counted.
        total: sql<number>`imported + skipped + failed + ${error ? 1 : 0}`,
        ...(error ? { failed: eb('failed', '+', 1) } : {}),
      }))
      .where(stillAt(row))
      .returning('failed')
      .executeTakeFirst();
    if (!result) return false;
    if (error) {
      await insertErrors(db, row.id, result.failed - 1, [error]);
    }
    return true;
  },
};
