import type { RecordingsTable } from '../../db/schema.ts';

type RecordingFields = Pick<
  RecordingsTable,
  'id' | 'note_id' | 'content_type' | 'size_bytes' | 'duration_seconds' | 'created_at' | 'language'
>;

/** The recording as the API shows it (also the `data` of `recording.ready`); no storage internals. */
export function toRecording(row: RecordingFields) {
  return {
    id: row.id,
    note_id: row.note_id ?? '',
    content_type: row.content_type,
    size_bytes: Number(row.size_bytes),
    ...(row.duration_seconds !== null ? { duration_seconds: Number(row.duration_seconds) } : {}),
    created_at: row.created_at,
    ...(row.language ? { language: row.language } : {}),
  };
}
