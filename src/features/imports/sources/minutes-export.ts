import { z } from 'zod';
import type { ImportedNote } from '../imported-note.ts';
import { SourceItemError } from './decode-text.ts';

/**
 * The format version `minutes export --all` writes; a reader refuses a newer one rather than lose fields. 2 adds
 * each note's recording and its audio file; a version 1 export (no recordings) reads as before.
 */
export const ACCOUNT_EXPORT_VERSION = 2;
export const ACCOUNT_EXPORT_FORMAT = 'minutes-account-export';

/** manifest.json at the top of an account export. */
export const ExportManifest = z.object({
  format: z.literal(ACCOUNT_EXPORT_FORMAT),
  version: z.number().int().positive(),
  exported_at: z.string(),
  spaces: z.array(
    z.object({
      mode: z.enum(['live', 'test']),
      folder: z.string(),
      notes: z.number().int(),
      // Absent before version 2.
      audio_files: z.number().int().optional(),
    }),
  ),
});
export type ExportManifest = z.infer<typeof ExportManifest>;

const Iso = z.string().datetime({ offset: true });

/** An audio file's name beside its note file: the recording id and the format's extension, nothing else. */
export const AUDIO_FILE_RE = /^rec_[0-9A-Za-z]{24}(?:\.[a-z0-9]{2,5})?$/;

/** A note's recording: every column of its row but where it is kept, and its audio file beside the note file. */
export const ExportedRecording = z.object({
  id: z.string().regex(/^rec_[0-9A-Za-z]{24}$/),
  content_type: z.string().min(1),
  size_bytes: z.number().int().nonnegative(),
  duration_seconds: z.number().nonnegative().nullable(),
  created_at: Iso,
  content_sha256: z.string().nullable(),
  language: z.string().nullable(),
  /** Null for a recording made from a transcript, which has no audio. */
  audio: z
    .object({
      file: z.string().regex(AUDIO_FILE_RE),
      size_bytes: z.number().int().nonnegative(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
    })
    .nullable(),
});
export type ExportedRecording = z.infer<typeof ExportedRecording>;

/** One note of an account export: every column of the note and of what belongs to it. */
export const ExportedNote = z.object({
  id: z.string().min(1),
  title: z.string(),
  title_locked: z.boolean(),
  status: z.enum(['processing', 'ready', 'failed']),
  failure_reason: z.string().nullable(),
  summary: z.string(),
  transcript: z.string(),
  duration_seconds: z.number().nonnegative(),
  tags: z.array(z.string()),
  created_at: Iso,
  updated_at: Iso,
  source: z.string().nullable(),
  source_id: z.string().nullable(),
  // Absent in exports written before notes had a language.
  language: z.string().nullable().optional(),
  analysis_notes: z.string().nullable().optional(),
  // Absent before version 2; null for a note without a recording (typed in, imported).
  recording: ExportedRecording.nullable().optional(),
  segments: z.array(
    z.object({ speaker: z.string(), start_ms: z.number(), end_ms: z.number(), text: z.string() }),
  ),
  speakers: z.array(z.object({ label: z.string(), name: z.string() })),
  highlights: z.array(
    z.object({ id: z.string(), timestamp_ms: z.number(), text: z.string(), created_at: Iso }),
  ),
  action_items: z.array(
    z.object({
      id: z.string(),
      text: z.string(),
      assignee: z.string().nullable(),
      due: z.string().nullable(),
      status: z.enum(['pending', 'completed']),
      created_at: Iso,
      updated_at: Iso,
      completed_at: Iso.nullable(),
    }),
  ),
});
export type ExportedNote = z.infer<typeof ExportedNote>;

/** A note file of a Minutes account export, as the note to store again (its id kept where it is free). */
export function parseMinutesNote(fileName: string, json: unknown): ImportedNote {
  const parsed = ExportedNote.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SourceItemError(`not a Minutes note: ${issue?.path.join('.') || 'value'}: ${issue?.message}`);
  }
  const n = parsed.data;
  return {
    source: 'minutes',
    // A note exported after it was imported keeps its first origin, so importing both creates it once.
    source_id: n.id,
    item: fileName,
    created_at: n.created_at,
    title: n.title,
    segments: n.segments,
    speakers: n.speakers,
    action_items: n.action_items,
    highlights: n.highlights,
    tags: n.tags,
    exact: {
      id: n.id,
      status: n.status,
      failure_reason: n.failure_reason,
      title_locked: n.title_locked,
      summary: n.summary,
      transcript: n.transcript,
      duration_seconds: n.duration_seconds,
      updated_at: n.updated_at,
      language: n.language ?? null,
      analysis_notes: n.analysis_notes ?? null,
      recording: n.recording ?? null,
      origin: n.source && n.source_id ? { source: n.source, source_id: n.source_id } : null,
    },
  };
}
