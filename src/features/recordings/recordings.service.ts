import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { Db, NotesTable, RecordingsTable } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { zodIssueToError } from '../../http/validation.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { isId, newId } from '../../lib/ids.ts';
import { LanguageTag } from '../../lib/schemas/language.ts';
import { type Space, spaceOf } from '../../lib/space.ts';
import { truncate } from '../../lib/text.ts';
import { nowIso, parseDateTime } from '../../lib/time.ts';
import type { Actor } from '../api-keys/scopes.ts';
import { recordEvent } from '../events/events.ts';
import type { SaveIdempotentResponse } from '../idempotency/idempotency.repo.ts';
import { type CreateNoteInput, Tags, Title } from '../notes/notes.schema.ts';
import { toNoteListItem } from '../notes/notes.view.ts';
import { insertNoteRow, processingNoteRow } from '../notes/stored-note.service.ts';
import { enqueueProcessing } from '../processing/process-note.job.ts';
import { audioKey } from '../storage/audio-storage.ts';
import type { PreparedTranscript } from '../transcripts/prepared-transcript.ts';
import {
  insertTranscript,
  type PreparedFrom,
  prepareInput,
  transcriptContentType,
  transcriptDigest,
} from '../transcripts/store-transcript.ts';
import { parseRange } from './byte-range.ts';
import type { UploadedFile } from './multipart-upload.ts';
import { probeAudio } from './probe-audio.ts';
import { recordingsRepo } from './recordings.repo.ts';
import type { ListRecordingsInput } from './recordings.schema.ts';
import { toRecording } from './recordings.view.ts';

/** What POST /v1/recordings answers: the ids to follow and the note's state. */
export interface RecordingAccepted {
  recording_id: string;
  note_id: string;
  status: 'processing';
}

/** The optional fields of an audio upload. */
export interface AudioFields {
  title?: string;
  created_at?: string;
  tags?: string[];
  /** BCP 47, canonical: the transcriber's hint and the note's language. */
  language?: string;
}

const UploadFields = z.strictObject({
  title: Title.optional(),
  created_at: z
    .string()
    .refine((v) => parseDateTime(v) !== null, { message: 'must be an ISO 8601 date-time with a time zone' })
    .transform((v) => parseDateTime(v)!.toISOString())
    .optional(),
  tags: Tags.optional(),
  language: LanguageTag.optional(),
});

/**
 * The text fields of a multipart upload, validated like the JSON body: `title`, `created_at` and `tags`
 * (repeated fields, `tags[]`, or one JSON array). Unknown fields are a 400 `parameter_unknown`, as in JSON.
 */
export function parseUploadFields(fields: readonly [string, string][]): AudioFields {
  const out: Record<string, unknown> = {};
  const tags: string[] = [];
  for (const [rawName, value] of fields) {
    const name = rawName === 'tags[]' ? 'tags' : rawName;
    if (name === 'tags') {
      if (value.trim().startsWith('[')) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(value);
        } catch {
          throw new AppError('parameter_invalid', "Invalid 'tags': not a valid JSON array of strings.", {
            param: 'tags',
          });
        }
        if (!Array.isArray(parsed)) {
          throw new AppError('parameter_invalid', "Invalid 'tags': must be a JSON array of strings.", {
            param: 'tags',
          });
        }
        tags.push(...(parsed as string[]));
      } else {
        tags.push(value);
      }
      out.tags = tags;
      continue;
    }
    if (Object.hasOwn(out, name)) {
      throw new AppError('parameter_invalid', `Field '${name}' was given more than once.`, { param: name });
    }
    out[name] = value;
  }
  const parsed = UploadFields.safeParse(out);
  if (!parsed.success) throw zodIssueToError(parsed.error, 'form', { value: out });
  return parsed.data;
}

/**
 * Creates a recording from a transcript (the JSON form of POST /v1/recordings, and text files imported by the
 * CLI): recording row + note with its segments, `recording.ready` then `note.created`, and the processing job,
 * in one transaction. The recording has no audio; its content type says which transcript format it was.
 */
export async function createRecordingFromTranscript(
  deps: Deps,
  actor: Actor,
  input: CreateNoteInput,
  source: {
    sha256?: string;
    idempotency?: SaveIdempotentResponse | undefined;
    /** The transcript as prepared with the request's body (jsonBody), if it was. */
    prepared?: PreparedFrom | undefined;
  } = {},
): Promise<RecordingAccepted> {
  const transcript = await prepareInput(deps, input, source.prepared);
  const digest = transcript.source ?? transcriptDigest(input, source.sha256);
  const createdAt = input.created_at ?? nowIso();
  const recording = recordingRow(actor, {
    content_type: transcriptContentType(input),
    size_bytes: digest.bytes,
    duration_seconds: input.duration_seconds ?? Math.ceil(transcript.durationMs / 1000),
    storage_key: null,
    created_at: createdAt,
    content_sha256: source.sha256 ?? digest.sha256,
    language: input.language ?? null,
  });
  const note = noteRow(actor, recording, {
    title: input.title,
    provisionalTitle: transcript.title,
    tags: input.tags ?? [],
    transcript: transcript.rendered,
    durationSeconds: recording.duration_seconds ?? 0,
  });
  const accepted: RecordingAccepted = { recording_id: recording.id, note_id: note.id, status: 'processing' };
  await deps.db.transaction().execute(async (trx) => {
    await insertIngest(trx, actor, {
      note,
      recording,
      transcript,
      speakerNames: new Map((input.speakers ?? []).map((s) => [s.label, s.name])),
      jobMaxAttempts: deps.config.worker.maxAttempts,
    });
    // Keyed by the note: deleting it deletes the recording too, and redacts this answer.
    await source.idempotency?.(trx, note.id, accepted);
  });
  // The job is committed: let an in-process worker start on it now rather than at its next poll.
  deps.wakeWorker();
  return accepted;
}

/**
 * Creates a recording from an uploaded audio file already on disk: checks it is audio of an accepted format
 * (415 otherwise, 400 when corrupt), measures its duration, moves it into storage, then writes recording and
 * note (`processing`, transcript to come), `recording.ready`, `note.created` and the processing job in one
 * transaction. If that transaction fails the stored file is removed again: nothing is half-stored.
 */
export async function createRecordingFromAudio(
  deps: Deps,
  actor: Actor,
  file: UploadedFile,
  fields: AudioFields,
  options: { idempotency?: SaveIdempotentResponse | undefined } = {},
): Promise<RecordingAccepted> {
  const storage = deps.audio;
  const audio = await probeAudio(file.path);
  const id = newId('recording');
  const key = audioKey(spaceOf(actor), id, audio.extension);
  const createdAt = fields.created_at ?? nowIso();
  const recording = recordingRow(actor, {
    id,
    content_type: audio.contentType,
    size_bytes: file.size,
    duration_seconds: audio.durationSeconds ?? null,
    storage_key: key,
    created_at: createdAt,
    content_sha256: file.sha256,
    language: fields.language ?? null,
  });
  const note = noteRow(actor, recording, {
    title: fields.title,
    provisionalTitle: titleFromFile(file.filename) ?? `Recording of ${formatWhen(createdAt)}`,
    tags: fields.tags ?? [],
    transcript: '',
    durationSeconds: audio.durationSeconds ?? 0,
  });
  const accepted: RecordingAccepted = { recording_id: recording.id, note_id: note.id, status: 'processing' };
  await storage.put(key, file.path);
  try {
    await deps.db.transaction().execute(async (trx) => {
      await insertIngest(trx, actor, {
        note,
        recording,
        transcript: null,
        speakerNames: new Map(),
        jobMaxAttempts: deps.config.worker.maxAttempts,
      });
      await options.idempotency?.(trx, note.id, accepted);
    });
  } catch (err) {
    await storage.delete(key).catch(() => {});
    throw err;
  }
  deps.wakeWorker();
  return accepted;
}

/** Lists the caller's recordings, newest first, with the total number of matches. */
export async function listRecordings(deps: Deps, actor: Actor, input: ListRecordingsInput) {
  const { rows, total } = await recordingsRepo.list(
    deps.db,
    spaceOf(actor),
    { from: input.from, to: input.to },
    { limit: input.per_page, offset: (input.page - 1) * input.per_page },
  );
  return { data: rows.map(toRecording), meta: { page: input.page, per_page: input.per_page, total } };
}

async function findRecording(db: Db, actor: Actor, id: string) {
  const row = isId('recording', id) ? await recordingsRepo.find(db, spaceOf(actor), id) : undefined;
  if (!row) throw notFound('recording', id);
  return row;
}

/** One recording; 404 for ids of other accounts or the other mode. */
export async function getRecording(deps: Deps, actor: Actor, id: string) {
  return toRecording(await findRecording(deps.db, actor, id));
}

/** What GET /v1/recordings/:id/audio sends. */
export type AudioResponse =
  | {
      kind: 'audio';
      status: 200 | 206;
      /** Opens the bytes to send (not done for HEAD, so no file is left open). */
      open: () => Promise<Readable>;
      contentType: string;
      /** Bytes in this response. */
      length: number;
      size: number;
      range?: { start: number; end: number };
      etag: string;
      filename: string;
    }
  | { kind: 'unsatisfiable'; size: number };

/**
 * The audio of a recording, whole or the byte range asked for (`Range`, honoured unless `If-Range` names
 * another version). 404 when the recording does not exist or was made from a transcript (it has no audio).
 */
export async function readRecordingAudio(
  deps: Deps,
  actor: Actor,
  id: string,
  headers: { range?: string; ifRange?: string },
): Promise<AudioResponse> {
  const storage = deps.audio;
  const row = await findRecording(deps.db, actor, id);
  if (!row.storage_key) {
    throw new AppError(
      'resource_not_found',
      `Recording '${id}' has no audio: it was created from a transcript.`,
      { param: 'id' },
    );
  }
  const size = await storage.size(row.storage_key);
  // The row says there is audio: a missing file is our failure (logged as a 500), not the caller's.
  if (size === undefined) throw new Error(`audio file missing from storage for recording ${row.id}`);
  // Stored audio never changes, so the recording id and size identify its one version.
  const etag = `"${row.id}-${size}"`;
  const honourRange = headers.ifRange === undefined || headers.ifRange.trim() === etag;
  const wanted = parseRange(honourRange ? headers.range : undefined, size);
  if (wanted.kind === 'unsatisfiable') return { kind: 'unsatisfiable', size };
  const range = wanted.kind === 'partial' ? wanted.range : undefined;
  const extension = /\.[a-z0-9]+$/.exec(row.storage_key)?.[0] ?? '';
  return {
    kind: 'audio',
    status: range ? 206 : 200,
    open: () => storage.read(row.storage_key!, range),
    contentType: row.content_type,
    length: range ? range.end - range.start + 1 : size,
    size,
    ...(range ? { range } : {}),
    etag,
    filename: `${row.id}${extension}`,
  };
}

/** The recording already holding exactly these bytes in the caller's space (imports skip those). */
export function findRecordingByContent(deps: Deps, actor: Actor, sha256: string) {
  return recordingsRepo.findByContent(deps.db, spaceOf(actor), sha256);
}

function recordingRow(
  actor: Actor,
  fields: Omit<RecordingsTable, 'id' | 'account_id' | 'mode' | 'note_id'> & { id?: string },
): RecordingsTable & { note_id: string } {
  return {
    ...fields,
    id: fields.id ?? newId('recording'),
    account_id: actor.accountId,
    mode: actor.mode,
    note_id: newId('note'),
  };
}

function noteRow(
  actor: Actor,
  recording: RecordingsTable & { note_id: string },
  fields: {
    title?: string | undefined;
    provisionalTitle: string;
    tags: string[];
    transcript: string;
    durationSeconds: number;
  },
): Omit<NotesTable, 'seq'> {
  return processingNoteRow(
    spaceOf(actor),
    {
      ...fields,
      id: recording.note_id,
      recordingId: recording.id,
      createdAt: recording.created_at,
      language: recording.language ?? null,
    },
    nowIso(),
  );
}

/** The audio storage keys the space's recordings refer to. */
export function recordingStorageKeys(db: Db, space: Space): Promise<Set<string>> {
  return recordingsRepo.storageKeys(db, space);
}

/** Writes a recording's row as it stands; the caller's transaction writes its note and events. */
export function insertRecordingRow(db: Db, recording: RecordingsTable) {
  return recordingsRepo.insert(db, recording);
}

/** Rows, events (recording.ready, then note.created) and the processing job: call inside one transaction. */
async function insertIngest(
  trx: Db,
  actor: Actor,
  ingest: {
    note: Omit<NotesTable, 'seq'>;
    recording: RecordingsTable;
    transcript: PreparedTranscript | null;
    speakerNames: ReadonlyMap<string, string>;
    jobMaxAttempts: number;
  },
): Promise<void> {
  const s = spaceOf(actor);
  const { note, recording } = ingest;
  await insertNoteRow(trx, s, note, JSON.parse(note.tags) as string[]);
  if (ingest.transcript) await insertTranscript(trx, s, note.id, ingest.transcript, ingest.speakerNames);
  await insertRecordingRow(trx, recording);
  await recordEvent(trx, s, 'recording.ready', toRecording(recording));
  await recordEvent(trx, s, 'note.created', toNoteListItem({ ...note, highlight_count: 0 }));
  await enqueueProcessing(trx, s, note.id, ingest.jobMaxAttempts);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: file names may carry control characters
const CONTROL = /[\u0000-\u001f\u007f]/g;

/** "weekly-sync 2026-11-20.m4a" → "weekly-sync 2026-11-20"; undefined when nothing readable is left. */
function titleFromFile(filename: string | undefined): string | undefined {
  if (!filename) return undefined;
  const stem = (filename.split(/[\\/]/).pop() ?? '')
    .replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .replace(CONTROL, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!/\p{L}/u.test(stem)) return undefined;
  return truncate(stem, 200);
}

/** "20 Nov 2026, 14:00 UTC". */
function formatWhen(iso: string): string {
  const d = new Date(iso);
  const date = d.toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
  return `${date}, ${iso.slice(11, 16)} UTC`;
}
