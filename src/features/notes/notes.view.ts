import type { NotesTable } from '../../db/schema.ts';

type ListRow = Pick<
  NotesTable,
  'id' | 'title' | 'summary' | 'created_at' | 'duration_seconds' | 'recording_id' | 'tags'
> & { highlight_count: number | string | null };

/** Note list form (docs/api.md, General: optional fields omitted): recording_id omitted when absent. */
export function toNoteListItem(row: ListRow) {
  return {
    id: row.id,
    title: row.title,
    summary: row.summary,
    created_at: row.created_at,
    duration_seconds: Number(row.duration_seconds),
    ...(row.recording_id ? { recording_id: row.recording_id } : {}),
    tags: JSON.parse(row.tags) as string[],
    highlights: Number(row.highlight_count ?? 0),
  };
}

export interface NoteParts {
  segments: { speaker: string; start_ms: number; end_ms: number; text: string }[];
  speakers: { label: string; name: string }[];
  highlights: { id: string; timestamp_ms: number; text: string }[];
  actionItems: {
    id: string;
    text: string;
    assignee: string | null;
    due: string | null;
    status: 'pending' | 'completed';
  }[];
}

/** Note detail form (docs/api.md, General: optional fields omitted) plus status, failure_reason and, on request, segments. */
export function toNoteDetail(
  row: NotesTable | Omit<NotesTable, 'seq'>,
  parts: NoteParts,
  withSegments: boolean,
) {
  return {
    id: row.id,
    title: row.title,
    summary: row.summary,
    transcript: row.transcript,
    action_items: parts.actionItems.map((a) => ({
      id: a.id,
      text: a.text,
      ...(a.assignee ? { assignee: a.assignee } : {}),
      ...(a.due ? { due: a.due } : {}),
      status: a.status,
    })),
    highlights: parts.highlights.map((h) => ({
      id: h.id,
      timestamp_ms: Number(h.timestamp_ms),
      text: h.text,
    })),
    speakers: parts.speakers,
    tags: JSON.parse(row.tags) as string[],
    created_at: row.created_at,
    duration_seconds: Number(row.duration_seconds),
    ...(row.recording_id ? { recording_id: row.recording_id } : {}),
    status: row.status,
    ...(row.failure_reason ? { failure_reason: row.failure_reason } : {}),
    ...(row.language ? { language: row.language } : {}),
    ...(row.analysis_notes ? { analysis_notes: row.analysis_notes } : {}),
    ...(withSegments
      ? {
          segments: parts.segments.map((s) => ({
            speaker: s.speaker,
            start_ms: Number(s.start_ms),
            end_ms: Number(s.end_ms),
            text: s.text,
          })),
        }
      : {}),
  };
}

/** A note's detail form, as `toNoteDetail` makes it (the API's `NoteDetail` schema describes it). */
export type NoteDetailView = ReturnType<typeof toNoteDetail>;

/**
 * A note's detail form as the JSON text of an answer: `JSON.stringify(detail)`, in bytes. When `transcript` is
 * the detail's very transcript with its JSON string literal in UTF-8 (`renderedJson`, made in the processing
 * thread that prepared it), those bytes stand in for it, so the thread that answers serialises only the small
 * fields.
 */
export function noteDetailJson(
  detail: NoteDetailView,
  transcript?: { rendered: string; renderedJson?: Uint8Array | undefined },
): Uint8Array<ArrayBuffer> {
  const literal = transcript?.rendered === detail.transcript ? transcript.renderedJson : undefined;
  if (!literal) return Buffer.from(JSON.stringify(detail), 'utf8');
  const entries = Object.entries(detail);
  const at = entries.findIndex(([key]) => key === 'transcript');
  // `{"id":…,"summary":…` then `"transcript":` and the literal, then `,"action_items":…}`: the same key order.
  const before = JSON.stringify(Object.fromEntries(entries.slice(0, at))).slice(0, -1);
  const after = JSON.stringify(Object.fromEntries(entries.slice(at + 1))).slice(1);
  return Buffer.concat([
    Buffer.from(`${before}${before === '{' ? '' : ','}"transcript":`, 'utf8'),
    literal,
    Buffer.from(after === '}' ? after : `,${after}`, 'utf8'),
  ]);
}
