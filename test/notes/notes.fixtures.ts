import { expect } from 'vitest';
import type { Mode } from '../../src/db/schema.ts';
import { newId } from '../../src/lib/ids.ts';
import type { Harness } from '../helpers/harness.ts';

/** Note detail as the API returns it. */
export interface NoteDetail {
  id: string;
  title: string;
  summary: string;
  transcript: string;
  action_items: { id: string; text: string; assignee?: string; due?: string; status: string }[];
  highlights: { id: string; timestamp_ms: number; text: string }[];
  speakers: { label: string; name: string }[];
  tags: string[];
  created_at: string;
  duration_seconds: number;
  recording_id?: string;
  status: 'processing' | 'ready' | 'failed';
  segments?: { speaker: string; start_ms: number; end_ms: number; text: string }[];
}

export interface NoteListItem {
  id: string;
  title: string;
  summary: string;
  created_at: string;
  duration_seconds: number;
  recording_id?: string;
  tags: string[];
  highlights?: number;
}

export const DETAIL_KEYS = [
  'id',
  'title',
  'summary',
  'transcript',
  'action_items',
  'highlights',
  'speakers',
  'tags',
  'created_at',
  'duration_seconds',
  'status',
];
/** Detail keys that may appear besides DETAIL_KEYS. */
export const OPTIONAL_DETAIL_KEYS = ['recording_id', 'failure_reason', 'segments'];
export const LIST_KEYS = ['id', 'title', 'summary', 'created_at', 'duration_seconds', 'tags'];
export const OPTIONAL_LIST_KEYS = ['recording_id', 'highlights'];

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
export const NOTE_ID = /^note_[0-9A-Za-z]{24}$/;

/** Creates a note through POST /v1/notes (a plain `Label: text` transcript unless the body says otherwise). */
export async function createNote(
  h: Harness,
  key: string,
  body: Record<string, unknown> = {},
): Promise<NoteDetail> {
  const res = await h.request<NoteDetail>('POST', '/v1/notes', {
    key,
    body: { ...(body.segments ? {} : { transcript: 'Alice: Hello everyone.\nBob: Hi Alice.' }), ...body },
  });
  expect(res.status, res.text.slice(0, 500)).toBe(202);
  return res.body;
}

/** GET /v1/notes with query parameters; asserts 200. */
export async function listNotes(
  h: Harness,
  key: string,
  query: Record<string, string | number> = {},
): Promise<{ data: NoteListItem[]; meta: { page: number; per_page: number; total: number } }> {
  const qs = new URLSearchParams(
    Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  const res = await h.request('GET', `/v1/notes${qs ? `?${qs}` : ''}`, { key });
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  return res.body;
}

/** Adds a highlight and an action item to a note straight in the database (processing does this in production). */
export async function addNoteParts(
  h: Harness,
  note: { id: string },
  space: { accountId: string; mode: Mode },
  parts: { assignee?: string | null; due?: string | null; status?: 'pending' | 'completed' } = {},
): Promise<{ highlightId: string; actionItemId: string }> {
  const now = new Date().toISOString();
  const highlightId = newId('highlight');
  const actionItemId = newId('actionItem');
  await h.db.db
    .insertInto('highlights')
    .values({
      id: highlightId,
      note_id: note.id,
      account_id: space.accountId,
      mode: space.mode,
      timestamp_ms: 1500,
      text: 'The budget review is due on Friday.',
      created_at: now,
    })
    .execute();
  const status = parts.status ?? 'pending';
  await h.db.db
    .insertInto('action_items')
    .values({
      id: actionItemId,
      note_id: note.id,
      account_id: space.accountId,
      mode: space.mode,
      text: 'Send the budget review',
      assignee: parts.assignee === undefined ? 'Bob' : parts.assignee,
      due: parts.due === undefined ? '2026-01-09' : parts.due,
      status,
      created_at: now,
      updated_at: now,
      completed_at: status === 'completed' ? now : null,
    })
    .execute();
  return { highlightId, actionItemId };
}

/** A note row written straight to the database, for ids the API would never issue (collation tests). */
export async function insertNoteRow(
  h: Harness,
  space: { accountId: string; mode: Mode },
  row: { id: string; created_at: string; title?: string },
): Promise<void> {
  await h.db.db
    .insertInto('notes')
    .values({
      id: row.id,
      account_id: space.accountId,
      mode: space.mode,
      recording_id: null,
      status: 'ready',
      failure_reason: null,
      title: row.title ?? 'Inserted note',
      title_locked: 0,
      summary: '',
      transcript: 'Alice: Inserted.',
      duration_seconds: 1,
      tags: '[]',
      created_at: row.created_at,
      updated_at: row.created_at,
    })
    .execute();
}

/** Rows a note owns, counted per table. */
export async function countOwnedRows(h: Harness, noteId: string): Promise<Record<string, number>> {
  const db = h.db.db;
  const count = async (table: 'segments' | 'speakers' | 'highlights' | 'action_items' | 'note_tags') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('note_id', '=', noteId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const notes = Number(
    (
      await db
        .selectFrom('notes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('id', '=', noteId)
        .executeTakeFirstOrThrow()
    ).n,
  );
  const recordings = Number(
    (
      await db
        .selectFrom('recordings')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('note_id', '=', noteId)
        .executeTakeFirstOrThrow()
    ).n,
  );
  return {
    notes,
    recordings,
    segments: await count('segments'),
    speakers: await count('speakers'),
    highlights: await count('highlights'),
    action_items: await count('action_items'),
    note_tags: await count('note_tags'),
  };
}

/** Bytewise descending comparison, the API's id tie-break. */
export function byCreatedDescIdDesc(
  a: { id: string; created_at: string },
  b: { id: string; created_at: string },
): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return Buffer.compare(Buffer.from(b.id), Buffer.from(a.id));
}
