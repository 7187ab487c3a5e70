/** The sources a note can be imported from; each note remembers its source and its id there. */
export const IMPORT_SOURCES = ['limitless', 'omi', 'minutes'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

export interface ImportedSegment {
  speaker: string;
  start_ms: number;
  end_ms: number;
  text: string;
}

export interface ImportedActionItem {
  /** Kept when the source is a Minutes export and the id is free here. */
  id?: string;
  text: string;
  assignee: string | null;
  /** YYYY-MM-DD. */
  due: string | null;
  status: 'pending' | 'completed';
  created_at?: string;
  updated_at?: string;
  completed_at: string | null;
}

export interface ImportedHighlight {
  id?: string;
  timestamp_ms: number;
  text: string;
  created_at?: string;
}

/**
 * One note as a source gives it, before it is stored: what the source knows (its time, speakers, title, action
 * items, headings) and nothing invented; the pipeline fills what is missing.
 */
export interface ImportedNote {
  source: ImportSource;
  source_id: string;
  /** The name of the item in the export (a file name, `conversations[3]`), for errors. */
  item: string;
  created_at: string;
  title?: string;
  segments: ImportedSegment[];
  /** Display names by speaker label. */
  speakers: { label: string; name: string }[];
  action_items: ImportedActionItem[];
  highlights: ImportedHighlight[];
  tags: string[];
  /** Only a Minutes export carries the rest: the note exactly as it was on the instance it came from. */
  exact?: ExactNoteFields;
}

/** The fields of a Minutes note that no other source has, so the note is reproduced field for field. */
export interface ExactNoteFields {
  id: string;
  status: 'processing' | 'ready' | 'failed';
  failure_reason: string | null;
  title_locked: boolean;
  summary: string;
  transcript: string;
  duration_seconds: number;
  updated_at: string;
  language: string | null;
  analysis_notes: string | null;
  /** The note's recording, with its audio file beside the note file when it has audio. */
  recording: ExportedRecordingFields | null;
  /** The source it had there, kept so a note imported twice over still knows its origin. */
  origin: { source: string; source_id: string } | null;
}

/** A recording of a Minutes export, as its note file describes it. */
export interface ExportedRecordingFields {
  id: string;
  content_type: string;
  size_bytes: number;
  duration_seconds: number | null;
  created_at: string;
  content_sha256: string | null;
  language: string | null;
  audio: { file: string; size_bytes: number; sha256: string } | null;
}

/** A source item that could not be read, named so its owner can find it; the other items go on. */
export interface ImportItemError {
  item: string;
  message: string;
}

/** What a parser gives back: the notes it read and the items it could not read. */
export interface ParsedImport {
  source: ImportSource;
  notes: ImportedNote[];
  errors: ImportItemError[];
}

/** A note that cannot be stored as its export describes it (its audio missing or not matching): it fails alone. */
export class ImportItemFailure extends Error {
  override name = 'ImportItemFailure';
}
