import { type SqlBool, sql } from 'kysely';
import { findInSpace, inSpace } from '../../db/in-space.ts';
import { insertInBatches } from '../../db/insert-in-batches.ts';
import { pagedList } from '../../db/paged-list.ts';
import type { ActionItemStatus, ActionItemsTable, Db } from '../../db/schema.ts';
import type { Space } from '../../lib/space.ts';

export interface ActionItemFilters {
  status?: ActionItemStatus;
  noteId?: string;
  /** Exact stored spellings to match (already resolved case-insensitively by `assigneeSpellings`). */
  assignees?: string[];
}

export interface ActionItemPatch {
  text?: string;
  status?: ActionItemStatus;
  due?: string | null;
  assignee?: string | null;
}

function filtered(db: Db, space: Space, f: ActionItemFilters) {
  let query = db.selectFrom('action_items').where(inSpace(space));
  if (f.status) query = query.where('status', '=', f.status);
  if (f.noteId !== undefined) query = query.where('note_id', '=', f.noteId);
  if (f.assignees !== undefined) {
    query = f.assignees.length
      ? query.where('assignee', 'in', f.assignees)
      : query.where(sql<SqlBool>`1 = 0`);
  }
  return query;
}

export const actionItemsRepo = {
  async list(db: Db, space: Space, f: ActionItemFilters, page: { limit: number; offset: number }) {
    return pagedList(
      filtered(db, space, f),
      (q) => q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
      page,
    );
  },

  /**
   * The distinct assignee spellings of a data space. Case-insensitive matching is done on these in JS:
   * SQLite's lower() folds ASCII only, PostgreSQL's folds Unicode, and the filter must answer the same on both.
   */
  distinctAssignees: async (db: Db, space: Space): Promise<string[]> =>
    (
      await db
        .selectFrom('action_items')
        .select('assignee')
        .distinct()
        .where(inSpace(space))
        .where('assignee', 'is not', null)
        .execute()
    ).map((r) => r.assignee!),

  find: (db: Db, space: Space, id: string) => findInSpace(db, 'action_items', space, id),

  /**
   * Applies a patch in one statement and returns the row after it, or undefined when the id is not in the
   * space. Completing keeps an existing `completed_at` (decided on the row's current state inside the same
   * statement, so two concurrent completions cannot move it); returning to pending clears it.
   */
  update: (db: Db, space: Space, id: string, patch: ActionItemPatch, now: string) =>
    db
      .updateTable('action_items')
      .set((eb) => ({
        updated_at: now,
        ...(patch.text !== undefined ? { text: patch.text } : {}),
        ...(patch.due !== undefined ? { due: patch.due } : {}),
        ...(patch.assignee !== undefined ? { assignee: patch.assignee } : {}),
        ...(patch.status === 'pending' ? { status: 'pending' as const, completed_at: null } : {}),
        ...(patch.status === 'completed'
          ? {
              status: 'completed' as const,
              completed_at: eb.fn.coalesce(
                eb
                  .case()
                  .when('action_items.status', '=', 'completed')
                  .then(eb.ref('action_items.completed_at'))
                  .end(),
                eb.val(now),
              ),
            }
          : {}),
      }))
      .where('id', '=', id)
      .where(inSpace(space))
      .returningAll()
      .executeTakeFirst(),

  /** Inserts action items in batches (the tests build their fixtures with it). */
  insert: (db: Db, rows: ActionItemsTable[]) =>
    insertInBatches(rows, (batch) => db.insertInto('action_items').values(batch).execute()),
};
