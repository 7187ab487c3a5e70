import type { ActionItemsTable } from '../../db/schema.ts';

/** Action item list form (docs/api.md, General): optional fields omitted, `completed_at` only while completed. */
export function toActionItem(row: ActionItemsTable) {
  return {
    id: row.id,
    text: row.text,
    ...(row.assignee ? { assignee: row.assignee } : {}),
    ...(row.due ? { due: row.due } : {}),
    status: row.status,
    note_id: row.note_id,
    created_at: row.created_at,
    ...(row.status === 'completed' && row.completed_at ? { completed_at: row.completed_at } : {}),
  };
}

export type ActionItemView = ReturnType<typeof toActionItem>;
