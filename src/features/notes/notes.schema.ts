import { z } from '@hono/zod-openapi';
import { EXAMPLE } from '../../lib/schemas/examples.ts';
import {
  codePoints,
  hasControlChars,
  lineText,
  Meta,
  PageQuery,
  rangeBound,
} from '../../lib/schemas/fields.ts';
import { LanguageTag } from '../../lib/schemas/language.ts';
import { parseDateTime } from '../../lib/time.ts';

export const MAX_TAGS = 25;

/** The example note of the document (see EXAMPLE): one planning meeting, two speakers, two action items. */
const EXAMPLE_SPEAKERS = [
  { label: 'Speaker 1', name: 'Maya Chen' },
  { label: 'Speaker 2', name: 'Daniel Okafor' },
];
const EXAMPLE_SEGMENT = {
  speaker: 'Speaker 1',
  start_ms: 754_000,
  end_ms: 759_800,
  text: 'The budget was exceeded by twelve percent, mostly on contractors.',
};
const EXAMPLE_ACTION_ITEMS = [
  {
    id: EXAMPLE.actionItemId,
    text: 'Send the revised Q3 forecast to finance',
    assignee: 'Maya Chen',
    due: '2026-12-04',
    status: 'pending' as const,
  },
  {
    id: EXAMPLE.secondActionItemId,
    text: 'Book the venue for the offsite',
    assignee: 'Daniel Okafor',
    status: 'completed' as const,
  },
];
const EXAMPLE_HIGHLIGHT = {
  id: EXAMPLE.highlightId,
  timestamp_ms: 754_000,
  text: 'The budget was exceeded by twelve percent, mostly on contractors.',
};
export const EXAMPLE_NOTE = {
  id: EXAMPLE.noteId,
  title: 'Q3 planning',
  summary:
    'Q3 spending ran twelve percent over plan, mostly on contractors. Maya sends finance a revised forecast ' +
    'by December 4; Daniel has booked the venue for the offsite.',
  created_at: EXAMPLE.recordedAt,
  duration_seconds: 1805,
  recording_id: EXAMPLE.recordingId,
  tags: ['planning', 'finance'],
};
const EXAMPLE_NOTE_DETAIL = {
  id: EXAMPLE_NOTE.id,
  title: EXAMPLE_NOTE.title,
  summary: EXAMPLE_NOTE.summary,
  transcript:
    'Speaker 1: The budget was exceeded by twelve percent, mostly on contractors.\n' +
    'Speaker 2: Then finance needs a revised forecast before the board meeting.\n' +
    "Speaker 1: I'll send the revised Q3 forecast to finance by December 4.\n" +
    'Speaker 2: And the venue for the offsite is booked.',
  action_items: EXAMPLE_ACTION_ITEMS,
  highlights: [EXAMPLE_HIGHLIGHT],
  speakers: EXAMPLE_SPEAKERS,
  tags: EXAMPLE_NOTE.tags,
  created_at: EXAMPLE_NOTE.created_at,
  duration_seconds: EXAMPLE_NOTE.duration_seconds,
  recording_id: EXAMPLE_NOTE.recording_id,
  status: 'ready' as const,
};
const EXAMPLE_NOTE_LIST_ITEM = { ...EXAMPLE_NOTE, highlights: 1 };

/** The 202 of `POST /v1/notes`: stored, not processed yet (no summary, action items or highlights). */
export const EXAMPLE_NOTE_ACCEPTED = {
  id: 'note_9Zt4Wd1Kp7Lb3Xv8Qm2Yc6Rn',
  title: 'Q3 planning',
  summary: '',
  transcript: EXAMPLE_NOTE_DETAIL.transcript,
  action_items: [],
  highlights: [],
  speakers: EXAMPLE_SPEAKERS,
  tags: EXAMPLE_NOTE.tags,
  created_at: EXAMPLE.recordedAt,
  duration_seconds: 1805,
  status: 'processing' as const,
};

/** Tags: ≤ 25, each 1–50 code points after trim, no control characters, de-duplicated case-insensitively. */
export const Tags = z
  .array(z.string({ error: 'each tag must be a string' }).max(1000, 'each tag must be 1–50 characters'))
  .transform((tags, ctx) => {
    const seen = new Set<string>();
    const out: string[] = [];
    for (const [i, raw] of tags.entries()) {
      const tag = raw.trim();
      if (codePoints(tag) < 1 || codePoints(tag) > 50 || hasControlChars(tag)) {
        ctx.addIssue({
          code: 'custom',
          path: [i],
          message: 'each tag must be 1–50 characters after trimming, without control characters',
        });
        return z.NEVER;
      }
      const folded = tag.toLowerCase();
      if (!seen.has(folded)) {
        seen.add(folded);
        out.push(tag);
      }
    }
    if (out.length > MAX_TAGS) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_TAGS} distinct tags` });
      return z.NEVER;
    }
    return out;
  })
  .openapi({
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: 50 },
    maxItems: MAX_TAGS,
    example: ['product', 'weekly'],
  } as never);

export const Title = lineText(1, 200).openapi({
  type: 'string',
  minLength: 1,
  maxLength: 200,
  example: 'Q3 planning',
} as never);

const DateTime = z
  .string()
  .refine((v) => parseDateTime(v) !== null, { message: 'must be an ISO 8601 date-time with a time zone' })
  .transform((v) => parseDateTime(v)!.toISOString())
  .openapi({ type: 'string', format: 'date-time', example: '2026-11-20T14:00:00Z' } as never);

export const Highlight = z
  .object({
    id: z.string().openapi({ example: EXAMPLE.highlightId }),
    timestamp_ms: z.number().int(),
    text: z.string(),
  })
  .openapi('Highlight', { example: EXAMPLE_HIGHLIGHT });

export const Speaker = z
  .object({ label: z.string(), name: z.string() })
  .openapi('Speaker', { example: EXAMPLE_SPEAKERS[0] });

export const Segment = z
  .object({ speaker: z.string(), start_ms: z.number().int(), end_ms: z.number().int(), text: z.string() })
  .openapi('Segment', { example: EXAMPLE_SEGMENT });

export const EmbeddedActionItem = z
  .object({
    id: z.string(),
    text: z.string(),
    assignee: z.string().optional(),
    due: z.string().optional().openapi({ format: 'date' }),
    status: z.enum(['pending', 'completed']),
  })
  .openapi('EmbeddedActionItem', { example: EXAMPLE_ACTION_ITEMS[0] });

export const NoteStatus = z.enum(['processing', 'ready', 'failed']);

export const NoteListItem = z
  .object({
    id: z.string().openapi({ example: EXAMPLE.noteId }),
    title: z.string(),
    summary: z.string(),
    created_at: z.string().openapi({ format: 'date-time' }),
    duration_seconds: z.number().int(),
    recording_id: z.string().optional(),
    tags: z.array(z.string()),
    highlights: z.number().int().optional().openapi({ description: 'Number of highlights.' }),
  })
  .openapi('NoteListItem', { example: EXAMPLE_NOTE_LIST_ITEM });

export const NoteList = z.object({ data: z.array(NoteListItem), meta: Meta }).openapi('NoteList', {
  example: { data: [EXAMPLE_NOTE_LIST_ITEM], meta: { page: 1, per_page: 20, total: 1 } },
});

export const NoteDetail = z
  .object({
    id: z.string(),
    title: z.string(),
    summary: z.string(),
    transcript: z.string().openapi({ description: 'One speaker turn per line: `<label>: <text>`.' }),
    action_items: z.array(EmbeddedActionItem),
    highlights: z.array(Highlight),
    speakers: z.array(Speaker),
    tags: z.array(z.string()),
    created_at: z.string().openapi({ format: 'date-time' }),
    duration_seconds: z.number().int(),
    recording_id: z.string().optional(),
    status: NoteStatus.openapi({ description: 'Processing state.' }),
    failure_reason: z.string().optional().openapi({ description: 'Why processing failed.' }),
    language: z
      .string()
      .optional()
      .openapi({ description: 'The language given when the note was created (BCP 47).' }),
    analysis_notes: z.string().optional().openapi({
      description:
        'What the analysis could not do and why, e.g. the builtin analyzer on a note not in English: a title and extractive summary, no action items.',
    }),
    segments: z
      .array(Segment)
      .optional()
      .openapi({ description: 'Timed segments, with `?include=segments`.' }),
  })
  .openapi('NoteDetail', { example: EXAMPLE_NOTE_DETAIL });

// PostgreSQL cannot compare text holding U+0000; refuse it instead of failing the query.
const noNul = (v: string) => !v.includes('\u0000');
const NO_NUL = { message: 'must not contain NUL (U+0000) characters' };

export const ListNotesQuery = z.object({
  ...PageQuery,
  q: z
    .string()
    .max(1000, 'must be at most 1000 characters')
    .refine(noNul, NO_NUL)
    .optional()
    .openapi({
      param: { name: 'q', in: 'query' },
      description: 'Keyword full-text query over title, summary and transcript.',
    }),
  from: rangeBound('from'),
  to: rangeBound('to'),
  tag: z
    .string()
    .max(200)
    .refine(noNul, NO_NUL)
    .optional()
    .openapi({ param: { name: 'tag', in: 'query' }, description: 'Exact tag, case-insensitive.' }),
});

export const GetNoteQuery = z.object({
  include: z
    .string()
    .optional()
    .refine((v) => v === undefined || v.split(',').every((p) => p.trim() === 'segments' || p.trim() === ''), {
      message: "the only value is 'segments'",
    })
    .openapi({
      param: { name: 'include', in: 'query' },
      description: '`segments` adds timed segments.',
    }),
});

export const NoteIdParam = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: EXAMPLE.noteId }),
});

export const UpdateNoteBody = z
  .strictObject({ title: Title.optional(), tags: Tags.optional() })
  .refine((b) => b.title !== undefined || b.tags !== undefined, {
    message: 'give at least one of title, tags',
  })
  .openapi('UpdateNote');

export const UpdateNoteResponse = z
  .object({ id: z.string(), title: z.string(), tags: z.array(z.string()) })
  .openapi('UpdatedNote', {
    example: {
      id: EXAMPLE.noteId,
      title: 'Q3 planning: budget review',
      tags: ['planning', 'finance', 'board'],
    },
  });

export const DeletedResponse = z
  .object({ deleted: z.literal(true) })
  .openapi('Deleted', { example: { deleted: true } });

const SegmentInput = z.strictObject({
  speaker: lineText(1, 100),
  start_ms: z
    .number()
    .int()
    .min(0)
    .max(86_400_000 * 7),
  end_ms: z
    .number()
    .int()
    .min(0)
    .max(86_400_000 * 7),
  text: z.string().refine((v) => v.trim().length > 0, { message: 'must not be empty' }),
});

export const CreateNoteBody = z
  .strictObject({
    title: Title.optional(),
    transcript: z
      .string()
      .optional()
      .openapi({ description: '`Label: text` lines, WebVTT or SRT. Up to 2 MB.' }),
    segments: z.array(SegmentInput).min(1).max(100_000).optional(),
    created_at: DateTime.optional(),
    tags: Tags.optional(),
    duration_seconds: z
      .number()
      .int()
      .min(0)
      .max(86_400 * 7)
      .optional(),
    speakers: z
      .array(z.strictObject({ label: lineText(1, 100), name: lineText(1, 200) }))
      .max(200)
      .optional(),
    language: LanguageTag.optional(),
  })
  .refine((b) => (b.transcript === undefined) !== (b.segments === undefined), {
    message: 'give exactly one of transcript, segments',
  })
  .openapi('CreateNote');

export type CreateNoteInput = z.infer<typeof CreateNoteBody>;
export type ListNotesInput = z.infer<typeof ListNotesQuery>;
