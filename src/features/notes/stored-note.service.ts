import type { Db, NotesTable } from '../../db/schema.ts';
import type { Space } from '../../lib/space.ts';
import { notesRepo } from './notes.repo.ts';

/**
 * Reads and writes of a note as stored, for the features that work on notes without a caller's key
 * (processing, search, recordings): they take a database handle or a transaction and a space, not an actor.
 */

/** The space's note in any status, or undefined. */
export function findStoredNote(db: Db, space: Space, noteId: string) {
  return notesRepo.find(db, space, noteId);
}

/** The note's transcript segments, in order. */
export function storedSegments(db: Db, noteId: string) {
  return notesRepo.segments(db, noteId);
}

/** The note's speakers (label and name), in order of first appearance. */
export function storedSpeakers(db: Db, noteId: string) {
  return notesRepo.speakers(db, noteId);
}

/** The note's segments (when asked for), speakers, highlights and action items, in the API's order. */
export async function storedNoteParts(db: Db, noteId: string, withSegments: boolean) {
  const [segments, speakers, highlights, actionItems] = await Promise.all([
    withSegments ? notesRepo.segments(db, noteId) : Promise.resolve([]),
    notesRepo.speakers(db, noteId),
    notesRepo.highlights(db, noteId),
    notesRepo.actionItems(db, noteId),
  ]);
  return { segments, speakers, highlights, actionItems };
}

/**
 * The row of a note accepted for processing: nothing summarised yet; a title the caller gave is locked, else the
 * provisional one stands until processing names the note.
 */
export function processingNoteRow(
  space: Space,
  note: {
    id: string;
    recordingId: string | null;
    title?: string | undefined;
    provisionalTitle: string;
    transcript: string;
    durationSeconds: number;
    tags: string[];
    createdAt: string;
    language: string | null;
  },
  now: string,
): Omit<NotesTable, 'seq'> {
  return {
    id: note.id,
    account_id: space.accountId,
    mode: space.mode,
    recording_id: note.recordingId,
    status: 'processing',
    failure_reason: null,
    title: note.title ?? note.provisionalTitle,
    title_locked: note.title ? 1 : 0,
    summary: '',
    transcript: note.transcript,
    duration_seconds: note.durationSeconds,
    tags: JSON.stringify(note.tags),
    created_at: note.createdAt,
    updated_at: now,
    language: note.language,
  };
}

/** Writes a new note's row and its tags; the caller's transaction writes its transcript and events. */
export async function insertNoteRow(db: Db, space: Space, note: Omit<NotesTable, 'seq'>, tags: string[]) {
  await notesRepo.insert(db, note);
  await notesRepo.replaceTags(db, space, note.id, tags);
}

/** Writes an imported note's row and its tags, unless the space holds that source item already (then false). */
export async function insertImportedNoteRow(
  db: Db,
  space: Space,
  note: Omit<NotesTable, 'seq'>,
  tags: string[],
): Promise<boolean> {
  if (!(await notesRepo.insertFromSource(db, note))) return false;
  await notesRepo.replaceTags(db, space, note.id, tags);
  return true;
}
