import { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import { MAX_PAGE, Meta } from '../../../lib/schemas/fields.ts';
import {
  Highlight,
  ListNotesQuery,
  NoteDetail,
  NoteListItem,
  NoteStatus,
  UpdateNoteBody,
  UpdateNoteResponse,
} from '../../notes/notes.schema.ts';
import { getNote, listNotes, updateNote } from '../../notes/notes.service.ts';
import { asQuery, defined, intIn, parseOrThrow } from '../mcp.schema.ts';
import { defineTool, OVERWRITING_UPDATE, READ_ONLY } from './tool.ts';

const NOTE_NOT_FOUND_HINT =
  'Find valid note ids (note_…) with list_notes or search_notes. A live key and a test key see separate data, ' +
  'so ids never carry over between them.';

export const noteIdArg = z
  .string()
  .min(1)
  .describe('The note id (note_…), as returned by list_notes or search_notes.');

/** The tag filter of the tools that search: the REST bodies' limit, with its message. */
export const tagFilter = () =>
  z
    .string()
    .max(200, 'must be at most 200 characters')
    .optional()
    .describe('Only notes with this tag (exact tag, case-insensitive).');

export const dateBound = (edge: 'from' | 'to') =>
  z
    .string()
    .optional()
    .describe(
      edge === 'from'
        ? "Only notes created at or after this: an ISO 8601 date (YYYY-MM-DD, from that day's start, UTC) or a " +
            'date-time with time zone (2026-01-05T09:00:00Z).'
        : 'Only notes created at or before this: an ISO 8601 date (YYYY-MM-DD, through the end of that day, UTC) ' +
            'or a date-time with time zone.',
    );

export const listNotesTool = defineTool({
  name: 'list_notes',
  title: 'List notes',
  description:
    "Lists the user's meeting notes, newest first: title, summary, date, duration, tags and number of highlights " +
    '(no transcript). Filter by date range (`from`/`to`), exact `tag`, or keywords (`q`). Good for "what meetings ' +
    'did I have last week?". For questions about what was said, prefer search_notes (semantic). Results are paged: ' +
    '`meta.total` counts all matches; request the next `page` while page × per_page < total.',
  scope: 'notes:read',
  input: z.strictObject({
    page: intIn(1, MAX_PAGE).optional().describe('Page number, starting at 1. Default 1.'),
    per_page: intIn(1, 100).optional().describe('Notes per page, 1–100. Default 20.'),
    q: z
      .string()
      .max(1000, 'must be at most 1000 characters')
      .optional()
      .describe(
        'Keywords matched against title, summary and transcript; every word must occur. Literal, not semantic: ' +
          'use search_notes to search by meaning.',
      ),
    from: dateBound('from'),
    to: dateBound('to'),
    tag: z.string().max(200).optional().describe('Only notes with this tag (exact tag, case-insensitive).'),
  }),
  output: z.object({ data: z.array(NoteListItem), meta: Meta }),
  annotations: READ_ONLY,
  notFoundHint: NOTE_NOT_FOUND_HINT,
  run: ({ deps, actor }, args) =>
    listNotes(
      deps,
      actor,
      parseOrThrow(ListNotesQuery, { ...args, page: asQuery(args.page), per_page: asQuery(args.per_page) }),
    ),
});

/** Note detail without the transcript unless asked for, and never the timed segments (get_transcript pages those). */
const NoteForModel = NoteDetail.omit({ segments: true, transcript: true }).extend({
  transcript: z
    .string()
    .optional()
    .describe('Only with include_transcript: one "<speaker label>: <text>" line per speaker turn.'),
});

export const getNoteTool = defineTool({
  name: 'get_note',
  title: 'Get a note',
  description:
    'Gets one note: title, summary, tags, date, duration, processing status, speakers (generic label → display ' +
    'name), highlights and action items (status, assignee, due date). The transcript is left out unless ' +
    'include_transcript is true, because it can be very long; to read what was said, prefer get_transcript, ' +
    'which pages through it with speaker names and timestamps.',
  scope: 'notes:read',
  input: z.strictObject({
    note_id: noteIdArg,
    include_transcript: z
      .boolean()
      .optional()
      .describe(
        'Also return the whole transcript as plain text. Default false; for long meetings use get_transcript.',
      ),
  }),
  output: NoteForModel,
  annotations: READ_ONLY,
  notFoundHint: NOTE_NOT_FOUND_HINT,
  tooLargeHint:
    'Call get_note again without include_transcript and read the transcript page by page with get_transcript ' +
    '(cursor, max_segments), or fetch the whole note over the REST API: GET /v1/notes/{note_id} (or ' +
    '/v1/notes/{note_id}/export?format=txt).',
  run: async ({ deps, actor }, args) => {
    const note = await getNote(deps, actor, args.note_id);
    if (args.include_transcript) return note;
    const { transcript: _left, ...withoutTranscript } = note;
    return withoutTranscript;
  },
});

const TRANSCRIPT_PAGE_DEFAULT = 100;
const TRANSCRIPT_PAGE_MAX = 500;

/** An opaque position in one note's transcript: base64url of `<note id>:<segment offset>`. */
export function encodeTranscriptCursor(noteIdValue: string, offset: number): string {
  return Buffer.from(`${noteIdValue}:${offset}`, 'utf8').toString('base64url');
}

function decodeTranscriptCursor(cursor: string, expectedNoteId: string): number {
  const invalid = (why: string) =>
    new AppError(
      'parameter_invalid',
      `Invalid 'cursor': ${why}. Pass next_cursor from the previous get_transcript result unchanged, or omit ` +
        'cursor to start at the beginning.',
      { param: 'cursor' },
    );
  const m = /^([^:]+):(\d{1,9})$/.exec(
    /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '',
  );
  if (!m) throw invalid('it is not a cursor returned by get_transcript');
  if (m[1] !== expectedNoteId) throw invalid('it belongs to another note');
  return Number(m[2]);
}

export const getTranscriptTool = defineTool({
  name: 'get_transcript',
  title: 'Read a transcript',
  description:
    "Reads a note's transcript in order, one page of segments at a time, so long meetings fit in context. Each " +
    "segment has the speaker's display name (and generic label), start and end in milliseconds from the start " +
    'of the recording, and the text. `total_segments` tells how long the transcript is. To continue, call again ' +
    'with `cursor` set to the `next_cursor` you got; when `next_cursor` is absent you have the end.',
  scope: 'notes:read',
  input: z.strictObject({
    note_id: noteIdArg,
    cursor: z
      .string()
      .max(500)
      .optional()
      .describe(
        'The next_cursor of the previous get_transcript result for this note. Omit to start at the beginning.',
      ),
    max_segments: intIn(1, TRANSCRIPT_PAGE_MAX)
      .optional()
      .describe(`Segments per page, 1–${TRANSCRIPT_PAGE_MAX}. Default ${TRANSCRIPT_PAGE_DEFAULT}.`),
  }),
  output: z.object({
    note_id: z.string(),
    title: z.string(),
    status: NoteStatus.describe(
      '`processing` while the note is being analysed; the transcript is complete in any state.',
    ),
    total_segments: z.number().int().describe('Number of segments in the whole transcript.'),
    segments: z.array(
      z.object({
        speaker_name: z.string().describe('Display name of the speaker.'),
        speaker_label: z
          .string()
          .describe('Generic label of the speaker in the transcript text, e.g. "Speaker 1".'),
        start_ms: z.number().int().describe('Start, in milliseconds from the start of the recording.'),
        end_ms: z.number().int().describe('End, in milliseconds from the start of the recording.'),
        text: z.string(),
      }),
    ),
    next_cursor: z
      .string()
      .optional()
      .describe('Pass as `cursor` to get the following segments; absent on the last page.'),
  }),
  annotations: READ_ONLY,
  notFoundHint: NOTE_NOT_FOUND_HINT,
  tooLargeHint:
    'Ask for fewer segments per page (a smaller max_segments). If a single segment is too long, read the ' +
    'transcript over the REST API: GET /v1/notes/{note_id}/export?format=txt.',
  run: async ({ deps, actor }, args) => {
    const offset = args.cursor === undefined ? 0 : decodeTranscriptCursor(args.cursor, args.note_id);
    const note = await getNote(deps, actor, args.note_id, { segments: true });
    const segments = note.segments ?? [];
    const names = new Map(note.speakers.map((s) => [s.label, s.name]));
    const end = Math.min(segments.length, offset + (args.max_segments ?? TRANSCRIPT_PAGE_DEFAULT));
    return {
      note_id: note.id,
      title: note.title,
      status: note.status,
      total_segments: segments.length,
      segments: segments.slice(offset, end).map((s) => ({
        speaker_name: names.get(s.speaker) ?? s.speaker,
        speaker_label: s.speaker,
        start_ms: s.start_ms,
        end_ms: s.end_ms,
        text: s.text,
      })),
      ...(end < segments.length ? { next_cursor: encodeTranscriptCursor(note.id, end) } : {}),
    };
  },
});

export const updateNoteTool = defineTool({
  name: 'update_note',
  title: 'Rename or retag a note',
  description:
    "Sets a note's title and/or replaces its tags. `tags` replaces the whole list: to add a tag, read the current " +
    'tags with get_note first and send them all. Returns the id, title and tags after the update.',
  scope: 'notes:write',
  input: z.strictObject({
    note_id: noteIdArg,
    title: z
      .string()
      .meta({ minLength: 1, maxLength: 200 })
      .optional()
      .describe('The new title: 1–200 characters on one line (trimmed).'),
    tags: z
      .array(z.string({ error: 'each tag must be a string' }))
      .meta({ maxItems: 25, items: { type: 'string', minLength: 1, maxLength: 50 } })
      .optional()
      .describe(
        'The complete new tag list, replacing the old one: at most 25 tags of 1–50 characters each; duplicates ' +
          'are removed case-insensitively; [] removes every tag.',
      ),
  }),
  output: UpdateNoteResponse,
  annotations: OVERWRITING_UPDATE,
  notFoundHint: NOTE_NOT_FOUND_HINT,
  run: ({ deps, actor }, { note_id, ...changes }) =>
    updateNote(deps, actor, note_id, parseOrThrow(UpdateNoteBody, defined(changes))),
});

export const listHighlightsTool = defineTool({
  name: 'list_highlights',
  title: 'List the highlights of a note',
  description:
    'Lists the highlights of one note: the key moments of the meeting, each with its position in the recording ' +
    '(`timestamp_ms`) and text. For the surrounding conversation, read that part with get_transcript.',
  scope: 'notes:read',
  input: z.strictObject({ note_id: noteIdArg }),
  output: z.object({ note_id: z.string(), data: z.array(Highlight) }),
  annotations: READ_ONLY,
  notFoundHint: NOTE_NOT_FOUND_HINT,
  run: async ({ deps, actor }, args) => {
    const note = await getNote(deps, actor, args.note_id);
    return { note_id: note.id, data: note.highlights };
  },
});
