import type { ActionItemsTable, Db, Mode } from '../../src/db/schema.ts';
import { actionItemsRepo } from '../../src/features/action-items/action-items.repo.ts';
import { notesRepo } from '../../src/features/notes/notes.repo.ts';
import { newId } from '../../src/lib/ids.ts';
import { nowIso } from '../../src/lib/time.ts';

export interface Space {
  accountId: string;
  mode: Mode;
}

export interface ItemSpec {
  id?: string;
  text?: string;
  assignee?: string | null;
  due?: string | null;
  status?: 'pending' | 'completed';
  created_at?: string;
  completed_at?: string | null;
}

/** Action item list form as the API returns it. */
export interface ActionItemView {
  id: string;
  text: string;
  assignee?: string;
  due?: string;
  status: 'pending' | 'completed';
  note_id: string;
  created_at: string;
  completed_at?: string;
}

export const AI_ID = /^ai_[0-9A-Za-z]{24}$/;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A ready note with the given action items, written through the repositories (processing extracts items in
 * production; these tests must not depend on it). A completed item gets a completed_at unless one is given.
 */
export async function createNoteWithItems(
  db: Db,
  space: Space,
  specs: ItemSpec[] = [{}],
  note: { title?: string; created_at?: string } = {},
): Promise<{ noteId: string; items: ActionItemsTable[] }> {
  const now = nowIso();
  const noteId = newId('note');
  await notesRepo.insert(db, {
    id: noteId,
    account_id: space.accountId,
    mode: space.mode,
    recording_id: null,
    status: 'ready',
    failure_reason: null,
    title: note.title ?? 'Weekly sync',
    title_locked: 0,
    summary: 'The team went through the open work.',
    transcript: 'Speaker 1: Let us go through the open work.',
    duration_seconds: 60,
    tags: '[]',
    created_at: note.created_at ?? now,
    updated_at: now,
  });
  const items: ActionItemsTable[] = specs.map((spec, i) => {
    const status = spec.status ?? 'pending';
    const createdAt = spec.created_at ?? now;
    return {
      id: spec.id ?? newId('actionItem'),
      note_id: noteId,
      account_id: space.accountId,
      mode: space.mode,
      text: spec.text ?? `Follow up on item ${i + 1}`,
      assignee: spec.assignee ?? null,
      due: spec.due ?? null,
      status,
      created_at: createdAt,
      updated_at: createdAt,
      completed_at:
        spec.completed_at !== undefined ? spec.completed_at : status === 'completed' ? createdAt : null,
    };
  });
  await actionItemsRepo.insert(db, items);
  return { noteId, items };
}

/** The stored row of an item, whatever its account or mode (to prove a refused request changed nothing). */
export const storedItem = (db: Db, id: string) =>
  db.selectFrom('action_items').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Minutes ago as an ISO timestamp: lets a test fix the list order. */
export const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();
