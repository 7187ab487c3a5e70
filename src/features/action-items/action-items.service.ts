import type { Deps } from '../../deps.ts';
import { notFound } from '../../lib/errors.ts';
import { isId } from '../../lib/ids.ts';
import { spaceOf } from '../../lib/space.ts';
import { nowIso } from '../../lib/time.ts';
import type { Actor } from '../api-keys/scopes.ts';
import { type ActionItemFilters, actionItemsRepo } from './action-items.repo.ts';
import type { ListActionItemsInput, UpdateActionItemInput } from './action-items.schema.ts';
import { type ActionItemView, toActionItem } from './action-items.view.ts';

/**
 * Lists the caller's action items across notes, newest first (`created_at` desc, `id` desc), filtered by
 * status and optionally by note and assignee (exact name, case-insensitive).
 */
export async function listActionItems(
  deps: Deps,
  actor: Actor,
  input: ListActionItemsInput,
): Promise<{ data: ActionItemView[]; meta: { page: number; per_page: number; total: number } }> {
  const filters: ActionItemFilters = {
    status: input.status === 'all' ? undefined : input.status,
    noteId: input.note_id,
  };
  if (input.assignee !== undefined) {
    const wanted = input.assignee.toLowerCase();
    filters.assignees = (await actionItemsRepo.distinctAssignees(deps.db, spaceOf(actor))).filter(
      (name) => name.toLowerCase() === wanted,
    );
  }
  const { rows, total } = await actionItemsRepo.list(deps.db, spaceOf(actor), filters, {
    limit: input.per_page,
    offset: (input.page - 1) * input.per_page,
  });
  return { data: rows.map(toActionItem), meta: { page: input.page, per_page: input.per_page, total } };
}

/** The assignee names of the caller's action items, sorted. */
export async function listAssignees(deps: Deps, actor: Actor): Promise<string[]> {
  return (await actionItemsRepo.distinctAssignees(deps.db, spaceOf(actor))).sort((a, b) =>
    a.localeCompare(b),
  );
}

/**
 * Updates status, text, due date and/or assignee and returns the whole item (list form).
 * Completing sets `completed_at` unless the item already was completed; back to pending removes it.
 * `null` clears `due` or `assignee`. 404 for ids of other accounts or the other mode.
 */
export async function updateActionItem(
  deps: Deps,
  actor: Actor,
  id: string,
  input: UpdateActionItemInput,
): Promise<ActionItemView> {
  // A value that is not an action item id cannot exist; it is not looked up (NUL cannot reach PostgreSQL).
  const row = isId('actionItem', id)
    ? await actionItemsRepo.update(deps.db, spaceOf(actor), id, input, nowIso())
    : undefined;
  if (!row) throw notFound('action item', id);
  return toActionItem(row);
}
