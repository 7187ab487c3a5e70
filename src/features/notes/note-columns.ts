/** The columns of a note's content and state: what every read of a whole note selects, in one order. */
export const NOTE_CONTENT_COLUMNS = [
  'recording_id',
  'status',
  'failure_reason',
  'title',
  'title_locked',
  'summary',
  'transcript',
  'duration_seconds',
  'tags',
  'created_at',
  'updated_at',
] as const;
