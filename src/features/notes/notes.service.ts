import type { Db } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { notFound } from '../../lib/errors.ts';
import { isId, newId } from '../../lib/ids.ts';
import { type Space, spaceOf } from '../../lib/space.ts';
import { nowIso } from '../../lib/time.ts';
import type { Actor } from '../api-keys/scopes.ts';
import { recordEvent, redactNoteEvents } from '../events/events.ts';
import { redactResponsesOf, type SaveIdempotentResponse } from '../idempotency/idempotency.repo.ts';
import { enqueueProcessing } from '../processing/process-note.job.ts';
import { refreshNoteIndex, removeNoteFromIndex } from '../search/index-note.ts';
import { deleteAudioFiles } from '../storage/audio-storage.ts';
import { insertTranscript, type PreparedFrom, prepareInput } from '../transcripts/store-transcript.ts';
import { cancelDeliveriesOfEvents } from '../webhooks/delivery/cancel-note-deliveries.ts';
import { notesRepo } from './notes.repo.ts';
import type { CreateNoteInput, ListNotesInput } from './notes.schema.ts';
import { type NoteParts, noteDetailJson, toNoteDetail, toNoteListItem } from './notes.view.ts';
import { insertNoteRow, processingNoteRow, storedNoteParts } from './stored-note.service.ts';

/** The caller's note, or undefined; a value that is not a note id is not looked up (NUL cannot reach PostgreSQL). */
function findNote(db: Db, space: Space, id: string) {
  return isId('note', id) ? notesRepo.find(db, space, id) : Promise.resolve(undefined);
}

/** Lists the caller's notes, newest first, with the total number of matches. */
export async function listNotes(deps: Deps, actor: Actor, input: ListNotesInput) {
  const { rows, total } = await notesRepo.list(
    deps.db,
    deps.dialect,
    spaceOf(actor),
    { q: input.q, from: input.from, to: input.to, tag: input.tag },
    { limit: input.per_page, offset: (input.page - 1) * input.per_page },
  );
  return { data: rows.map(toNoteListItem), meta: { page: input.page, per_page: input.per_page, total } };
}

/** Titles of the caller's notes among these ids (ids of other spaces are left out). */
export function noteTitles(deps: Deps, actor: Actor, ids: readonly string[]): Promise<Map<string, string>> {
  return notesRepo.titles(deps.db, spaceOf(actor), ids);
}

/** One note in detail form; 404 for ids of other accounts or the other mode. */
export function getNote(deps: Deps, actor: Actor, id: string, options: { segments?: boolean } = {}) {
  return noteDetail(deps.db, spaceOf(actor), id, options.segments ?? false);
}

/** getNote on a database handle or inside a transaction. */
async function noteDetail(db: Db, space: Space, id: string, withSegments: boolean) {
  const note = await findNote(db, space, id);
  if (!note) throw notFound('note', id);
  return toNoteDetail(note, await storedNoteParts(db, id, withSegments), withSegments);
}

/**
 * Updates title and/or tags; a title set by the user is kept when processing finishes later. A new title is
 * a search chunk of its own: the note's index entries follow here, whoever calls (REST, MCP, CLI). Tags are
 * filtered from the notes table and need no index change.
 */
export async function updateNote(
  deps: Deps,
  actor: Actor,
  id: string,
  input: { title?: string; tags?: string[] },
) {
  const space = spaceOf(actor);
  const updated = await deps.db.transaction().execute(async (trx) => {
    const note = await findNote(trx, space, id);
    if (!note) throw notFound('note', id);
    const patch: Parameters<typeof notesRepo.update>[2] = { updated_at: nowIso() };
    if (input.title !== undefined) Object.assign(patch, { title: input.title, title_locked: 1 });
    if (input.tags !== undefined) {
      patch.tags = JSON.stringify(input.tags);
      await notesRepo.replaceTags(trx, space, id, input.tags);
    }
    await notesRepo.update(trx, id, patch);
    return {
      id,
      title: input.title ?? note.title,
      tags: input.tags ?? (JSON.parse(note.tags) as string[]),
    };
  });
  if (input.title !== undefined) await refreshNoteIndex(deps, space, id);
  return updated;
}

/**
 * Permanently deletes the note and every copy of its content, in one transaction: its rows (recording, items,
 * highlights, speakers, transcript), its search index entries, its outbox events (payloads cut to ids; their
 * deliveries not yet sent cancelled) and stored Idempotency-Key answers (replays answer 404). Then the
 * recording's audio file: after the commit, as a rolled-back delete cannot restore a file. Every caller
 * (REST, MCP, CLI) gets all of it. See docs/decisions.md on what remains (free pages, delivery logs).
 */
export async function deleteNote(deps: Deps, actor: Actor, id: string) {
  const space = spaceOf(actor);
  const audioKeys = await deps.db.transaction().execute(async (trx) => {
    const note = await findNote(trx, space, id);
    if (!note) throw notFound('note', id);
    // A queued processing job finds the note gone and ends; nothing else refers to it.
    const keys = await notesRepo.deleteRecordings(trx, id);
    await removeNoteFromIndex(deps, space, id, trx);
    await cancelDeliveriesOfEvents(trx, await redactNoteEvents(trx, id));
    await redactResponsesOf(trx, [id]);
    await notesRepo.delete(trx, id);
    return keys;
  });
  await deleteAudioFiles(deps.audio, audioKeys, deps.logger);
  return { deleted: true as const };
}

/**
 * Creates a note from a transcript or segments: stored at once with status `processing`, `note.created`
 * written to the outbox, a processing job queued and (with an Idempotency-Key) the answer stored, all in one
 * transaction; then the in-process worker is woken to start on it now rather than at its next poll.
 */
export async function createNote(...args: Parameters<typeof acceptNote>) {
  return (await acceptNote(...args)).note;
}

/**
 * createNote, with the JSON text of its answer (the route's 202): the detail is built from what is written
 * rather than read back (a transcript of megabytes would cross the database connection again), and a transcript
 * prepared in the thread that read the body arrives serialised already (`noteDetailJson`). A stored idempotent
 * answer is the same text, serialised by the saver.
 */
export async function acceptNote(
  deps: Deps,
  actor: Actor,
  input: CreateNoteInput,
  options: {
    idempotency?: SaveIdempotentResponse | undefined;
    /** The transcript as prepared with the request's body (jsonBody), if it was. */
    prepared?: PreparedFrom | undefined;
  } = {},
) {
  const transcript = await prepareInput(deps, input, options.prepared);
  const names = new Map((input.speakers ?? []).map((s) => [s.label, s.name]));
  const now = nowIso();
  const tags = input.tags ?? [];
  const s = spaceOf(actor);
  const note = processingNoteRow(
    s,
    {
      id: newId('note'),
      recordingId: null,
      title: input.title,
      provisionalTitle: transcript.title,
      transcript: transcript.rendered,
      durationSeconds: input.duration_seconds ?? Math.ceil(transcript.durationMs / 1000),
      tags,
      createdAt: input.created_at ?? now,
      language: input.language ?? null,
    },
    now,
  );
  const created = toNoteDetail(note, newNoteParts(transcript.labels, names), false);
  await deps.db.transaction().execute(async (trx) => {
    await insertNoteRow(trx, s, note, tags);
    await insertTranscript(trx, s, note.id, transcript, names);
    await recordEvent(trx, s, 'note.created', toNoteListItem({ ...note, highlight_count: 0 }));
    await enqueueProcessing(trx, s, note.id, deps.config.worker.maxAttempts);
    await options.idempotency?.(trx, note.id, created);
  });
  deps.wakeWorker();
  return { note: created, json: noteDetailJson(created, transcript) };
}

/** What a note has right after it is created: its speakers, nothing found yet. */
function newNoteParts(labels: readonly string[], names: ReadonlyMap<string, string>): NoteParts {
  return {
    segments: [],
    speakers: labels.map((label) => ({ label, name: names.get(label) ?? label })),
    highlights: [],
    actionItems: [],
  };
}
