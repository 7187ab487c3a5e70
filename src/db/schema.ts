import type { Generated, Kysely } from 'kysely';

/** live or test data space; every row of every table carries one. */
export type Mode = 'live' | 'test';

/** Timestamps are ISO 8601 UTC text (`toIso`), identical on both dialects and sortable as text. */
type Iso = string;

export interface AccountsTable {
  id: string;
  email: string;
  name: string | null;
  created_at: Iso;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  mode: Mode;
  name: string | null;
  /** SHA-256 hex of the whole key; the key itself is never stored. */
  key_hash: string;
  /** First characters of the key, shown in listings so a user can tell keys apart. */
  key_start: string;
  /** JSON array of scopes. */
  scopes: string;
  created_at: Iso;
  expires_at: Iso | null;
  revoked_at: Iso | null;
  last_used_at: Iso | null;
}

/** Marks a data space (account + mode) as seeded; the test space is seeded on first use. */
export interface DataSpacesTable {
  account_id: string;
  mode: Mode;
  seeded_at: Iso;
}

export interface RecordingsTable {
  id: string;
  account_id: string;
  mode: Mode;
  note_id: string | null;
  content_type: string;
  size_bytes: number;
  duration_seconds: number | null;
  storage_key: string | null;
  created_at: Iso;
  /** SHA-256 hex of the ingested audio or transcript file (0004), so imports can skip what they have seen. */
  content_sha256: string | null;
  /** The language of the speech (BCP 47), when given (0013): the transcriber's hint, and its note's language. */
  language?: string | null;
}

export type NoteStatus = 'processing' | 'ready' | 'failed';

export interface NotesTable {
  /** Stable integer key of the keyword index (SQLite FTS5 rowid). */
  seq: Generated<number>;
  id: string;
  account_id: string;
  mode: Mode;
  recording_id: string | null;
  status: NoteStatus;
  failure_reason: string | null;
  title: string;
  /** True when the user set the title, so processing does not overwrite it. */
  title_locked: number;
  summary: string;
  transcript: string;
  duration_seconds: number;
  /** JSON array, display spelling, in the user's order. */
  tags: string;
  created_at: Iso;
  updated_at: Iso;
  /** The note's language (BCP 47) when given (0013); the language model writes the notes in it. */
  language?: string | null;
  /** What the analysis could not do and why, for the owner (0013); null when it did everything. */
  analysis_notes?: string | null;
  /** Where an imported note came from (limitless, omi, minutes) and its id there (migration 14); null otherwise. */
  source?: string | null;
  source_id?: string | null;
}

/** One row per (note, lower-cased tag) for exact, case-insensitive tag filters. */
export interface NoteTagsTable {
  note_id: string;
  account_id: string;
  mode: Mode;
  tag: string;
  /** The note's created_at, so a tag filter walks one index in the list's order (migration 6). */
  created_at: string;
}

/** Notes per data space, maintained by triggers on notes. */
export interface NoteCountsTable {
  account_id: string;
  mode: Mode;
  n: number;
}

export interface SegmentsTable {
  note_id: string;
  account_id: string;
  mode: Mode;
  position: number;
  speaker: string;
  start_ms: number;
  end_ms: number;
  text: string;
}

export interface SpeakersTable {
  note_id: string;
  account_id: string;
  mode: Mode;
  position: number;
  label: string;
  name: string;
}

export interface HighlightsTable {
  id: string;
  note_id: string;
  account_id: string;
  mode: Mode;
  timestamp_ms: number;
  text: string;
  created_at: Iso;
}

export type ActionItemStatus = 'pending' | 'completed';

export interface ActionItemsTable {
  id: string;
  note_id: string;
  account_id: string;
  mode: Mode;
  text: string;
  assignee: string | null;
  due: string | null;
  status: ActionItemStatus;
  created_at: Iso;
  updated_at: Iso;
  completed_at: Iso | null;
}

/** Transactional outbox: written in the same transaction as the change it describes. */
export interface EventsTable {
  id: string;
  account_id: string;
  mode: Mode;
  type: string;
  /** JSON of the full event body `{id, type, created_at, data}`. */
  payload: string;
  created_at: Iso;
  /** Insertion order, so events of one note are delivered in the order they were written. */
  seq: Generated<number>;
  /** The note the event is about (migration 7): deleting the note redacts the event's payload. */
  note_id: string | null;
}

export type JobStatus = 'queued' | 'running' | 'done' | 'failed';

export interface JobsTable {
  id: string;
  account_id: string;
  mode: Mode;
  type: string;
  /** JSON payload, validated by the job's zod schema when claimed. */
  payload: string;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  run_at: Iso;
  locked_until: Iso | null;
  locked_by: string | null;
  last_error: string | null;
  created_at: Iso;
  updated_at: Iso;
}

/** An import of an uploaded export, run as a chain of jobs (features/imports). */
export interface ImportsTable {
  id: string;
  account_id: string;
  mode: Mode;
  status: 'running' | 'completed' | 'failed';
  source: string | null;
  /** The uploaded file's name, as the client gave it. */
  filename: string;
  file_kind: 'zip' | 'json';
  /** Where the upload is kept under DATA_DIR until the import ends. */
  file_path: string;
  me: string | null;
  total: number;
  imported: number;
  skipped: number;
  failed: number;
  /** Files of the export read and counted: where a resumed import carries on. */
  files_done: number;
  /** The step of the job chain; only the job of the current step may write. */
  step: number;
  created_at: Iso;
  updated_at: Iso;
  finished_at: Iso | null;
}

export interface ImportErrorsTable {
  import_id: string;
  position: number;
  item: string;
  message: string;
}

export interface IdempotencyKeysTable {
  account_id: string;
  mode: Mode;
  key: string;
  request_hash: string;
  /** null while the first request is still running. */
  response_status: number | null;
  response_body: string | null;
  created_at: Iso;
  /** The object the stored response describes (migration 7): deleting it redacts the response. */
  resource_id: string | null;
}

export interface RateLimitsTable {
  key_id: string;
  window_start: Iso;
  count: number;
}

/** A person who signs in to the dashboard: one per account (migration 10). */
export interface UsersTable {
  id: string;
  account_id: string;
  /** Lower-cased; the account's email. */
  email: string;
  /** argon2id PHC string; null until the set-up link is used. */
  password_hash: string | null;
  created_at: Iso;
  updated_at: Iso;
}

/** A one-time link to choose a password; only the SHA-256 hex of its token is stored. */
export interface SetupLinksTable {
  token_hash: string;
  user_id: string;
  created_at: Iso;
  expires_at: Iso;
  used_at: Iso | null;
}

/** A dashboard sign-in; the cookie holds the token, the row only its SHA-256 hex. */
export interface SessionsTable {
  token_hash: string;
  user_id: string;
  account_id: string;
  /** The data space the dashboard shows ("Test mode" switch). */
  mode: Mode;
  created_at: Iso;
  last_seen_at: Iso;
  /** Absolute expiry, set at sign-in. */
  expires_at: Iso;
}

/** Failed sign-ins per email in the current window (brute-force protection). */
export interface SignInAttemptsTable {
  subject: string;
  address: string;
  window_start: Iso;
  attempts: number;
}

export interface SignInKnownAddressesTable {
  subject: string;
  address: string;
  last_success_at: Iso;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  data_spaces: DataSpacesTable;
  recordings: RecordingsTable;
  notes: NotesTable;
  note_tags: NoteTagsTable;
  note_counts: NoteCountsTable;
  segments: SegmentsTable;
  speakers: SpeakersTable;
  highlights: HighlightsTable;
  action_items: ActionItemsTable;
  events: EventsTable;
  jobs: JobsTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_limits: RateLimitsTable;
  users: UsersTable;
  setup_links: SetupLinksTable;
  sessions: SessionsTable;
  sign_in_attempts: SignInAttemptsTable;
  sign_in_known_addresses: SignInKnownAddressesTable;
  imports: ImportsTable;
  import_errors: ImportErrorsTable;
}

export type Dialect = 'sqlite' | 'postgres';

export type Db = Kysely<Database>;
