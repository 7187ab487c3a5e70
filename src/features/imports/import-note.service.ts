import type { ActionItemsTable, HighlightsTable, NotesTable, RecordingsTable } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { newId } from '../../lib/ids.ts';
import { type Space, spaceOf } from '../../lib/space.ts';
import { nowIso, toIso } from '../../lib/time.ts';
import type { Actor } from '../api-keys/scopes.ts';
import { recordEvent } from '../events/events.ts';
import { toNoteListItem } from '../notes/notes.view.ts';
import { insertImportedNoteRow } from '../notes/stored-note.service.ts';
import { enqueueProcessing } from '../processing/process-note.job.ts';
import { insertRecordingRow } from '../recordings/recordings.service.ts';
import { indexNote } from '../search/index-note.ts';
import { deleteAudioFiles } from '../storage/audio-storage.ts';
import { prepareTranscript } from '../transcripts/prepared-transcript.ts';
import { insertTranscript } from '../transcripts/store-transcript.ts';
import { storeImportedAudio } from './import-audio.ts';
import type { ImportedNote } from './imported-note.ts';
import { importedRecordingId } from './imported-recording-id.ts';
import { importsRepo } from './imports.repo.ts';
import type { OpenSibling } from './read-export.ts';

export type ImportNoteOutcome =
  | { outcome: 'imported'; note_id: string }
  | { outcome: 'skipped'; reason: 'already imported'; note_id: string };

/**
 * Stores a note read from an export, in one transaction: the note with its source's time, title, tags,
 * speakers, segments, action items (status, due date, completion) and highlights, and `note.created`. A note
 * from Limitless or Omi then goes through the pipeline like any new note, which keeps what the source extracted
 * and fills the rest (summary, index). A note of a Minutes export is stored as it was (status, summary, ids
 * where they are free) and indexed, with its recording and the recording's audio (opened by `sibling`, checked
 * against its size and SHA-256, moved into storage before the transaction and removed again if it fails: no
 * file without a row, no row without a file; its key is never random, so after a crash between the two the
 * resumed import writes the same file again). The same source item imported again is skipped: the note
 * remembers its source and source id, unique per space, so two imports racing still store it once.
 */
export async function importNote(
  deps: Deps,
  actor: Actor,
  note: ImportedNote,
  options: { sibling?: OpenSibling | undefined } = {},
): Promise<ImportNoteOutcome> {
  const space = spaceOf(actor);
  const identity = await resolveIdentity(deps, space, note);
  if ('existing' in identity)
    return { outcome: 'skipped', reason: 'already imported', note_id: identity.existing };
  const { id, source, sourceId } = identity;
  const exact = note.exact;
  const prepared = prepareTranscript(note.segments);
  const now = nowIso();
  const exported = exact?.recording ?? null;
  const recording: RecordingsTable | null = exported && {
    // Kept where it is free, like the note's id; else derived from it, so a resumed import reuses its audio's key.
    id: await importedRecordingId(deps.db, space, exported.id),
    account_id: space.accountId,
    mode: space.mode,
    note_id: id,
    content_type: exported.content_type,
    size_bytes: exported.size_bytes,
    duration_seconds: exported.duration_seconds,
    storage_key: null,
    created_at: exported.created_at,
    content_sha256: exported.content_sha256,
    language: exported.language,
  };
  const row: Omit<NotesTable, 'seq'> = {
    id,
    account_id: space.accountId,
    mode: space.mode,
    recording_id: recording?.id ?? null,
    status: exact?.status ?? 'processing',
    failure_reason: exact?.failure_reason ?? null,
    title: note.title ?? prepared.title,
    title_locked: exact ? (exact.title_locked ? 1 : 0) : note.title ? 1 : 0,
    summary: exact?.summary ?? '',
    transcript: exact?.transcript ?? prepared.rendered,
    duration_seconds: exact?.duration_seconds ?? Math.ceil(prepared.durationMs / 1000),
    tags: JSON.stringify(note.tags),
    created_at: note.created_at,
    updated_at: exact?.updated_at ?? now,
    source,
    source_id: sourceId,
    language: exact?.language ?? null,
    analysis_notes: exact?.analysis_notes ?? null,
  };
  const taken = exact
    ? await importsRepo.takenPartIds(
        deps.db,
        note.action_items.flatMap((a) => (a.id ? [a.id] : [])),
        note.highlights.flatMap((h) => (h.id ? [h.id] : [])),
      )
    : new Set<string>();
  const owned = { note_id: id, account_id: space.accountId, mode: space.mode };
  const nowMs = Date.now();
  const actionItems: ActionItemsTable[] = note.action_items.map((a, i) => {
    // One millisecond apart when the source has no times, so listings keep the source's order.
    const createdAt = a.created_at ?? toIso(nowMs + i);
    return {
      ...owned,
      id: a.id && !taken.has(a.id) ? a.id : newId('actionItem'),
      text: a.text,
      assignee: a.assignee,
      due: a.due,
      status: a.status,
      created_at: createdAt,
      updated_at: a.updated_at ?? createdAt,
      completed_at: a.completed_at,
    };
  });
  const highlights: HighlightsTable[] = note.highlights.map((h) => ({
    ...owned,
    id: h.id && !taken.has(h.id) ? h.id : newId('highlight'),
    timestamp_ms: h.timestamp_ms,
    text: h.text,
    created_at: h.created_at ?? now,
  }));
  const names = new Map(note.speakers.map((s) => [s.label, s.name]));
  if (recording && exported?.audio)
    recording.storage_key = await storeImportedAudio(
      deps,
      space,
      recording.id,
      exported.audio,
      options.sibling,
    );

  const stored = await deps.db
    .transaction()
    .execute(async (trx) => {
      if (!(await insertImportedNoteRow(trx, space, row, note.tags))) throw new AlreadyImported();
      await insertTranscript(trx, space, id, prepared, names);
      await importsRepo.insertActionItems(trx, actionItems);
      await importsRepo.insertHighlights(trx, highlights);
      if (recording) await insertRecordingRow(trx, recording);
      await recordEvent(
        trx,
        space,
        'note.created',
        toNoteListItem({ ...row, highlight_count: highlights.length }),
      );
      if (row.status === 'processing')
        await enqueueProcessing(trx, space, id, deps.config.worker.maxAttempts);
      return true;
    })
    .catch(async (err: unknown) => {
      // The audio moved in for this note goes again, unless a racing import of the same note stored it.
      const key = recording?.storage_key;
      if (key && !(await importsRepo.audioKeyStored(deps.db, key)))
        await deleteAudioFiles(deps.audio, [key], deps.logger);
      if (err instanceof AlreadyImported) return false;
      throw err;
    });
  if (!stored) {
    const winner =
      source && sourceId ? await importsRepo.findBySource(deps.db, space, source, sourceId) : undefined;
    return { outcome: 'skipped', reason: 'already imported', note_id: winner?.id ?? id };
  }
  if (row.status === 'processing') deps.wakeWorker();
  // A finished note is not processed again: its search entries are written from what was stored.
  else if (row.status === 'ready') await indexNote(deps, space, id);
  return { outcome: 'imported', note_id: id };
}

class AlreadyImported extends Error {}

type Identity = { existing: string } | { id: string; source: string | null; sourceId: string | null };

/**
 * The id and origin an imported note is stored with, or the note that holds it already. A Limitless or Omi
 * item is known by its source and id there. A Minutes note keeps its id when no note has it (the usual case:
 * a move to an empty instance) and the origin it had; when another account's note holds the id, it gets a new
 * id and remembers the old one as its source id, so importing the same export again still skips it.
 */
async function resolveIdentity(deps: Deps, space: Space, note: ImportedNote): Promise<Identity> {
  const bySource = (source: string, sourceId: string) =>
    importsRepo.findBySource(deps.db, space, source, sourceId).then((hit) => hit && { existing: hit.id });
  const exact = note.exact;
  if (!exact) {
    return (
      (await bySource(note.source, note.source_id)) ?? {
        id: newId('note'),
        source: note.source,
        sourceId: note.source_id,
      }
    );
  }
  const holder = await importsRepo.findById(deps.db, exact.id);
  if (holder && holder.account_id === space.accountId && holder.mode === space.mode)
    return { existing: holder.id };
  const origin = exact.origin;
  if (origin) {
    const hit = await bySource(origin.source, origin.source_id);
    if (hit) return hit;
    return { id: holder ? newId('note') : exact.id, source: origin.source, sourceId: origin.source_id };
  }
  const moved = await bySource('minutes', exact.id);
  if (moved) return moved;
  return holder
    ? { id: newId('note'), source: 'minutes', sourceId: exact.id }
    : { id: exact.id, source: null, sourceId: null };
}
