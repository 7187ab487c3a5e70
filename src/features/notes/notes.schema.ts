import { z } from '@hono/zod-openapi';
import { codePoints, hasControlChars, lineText, PageQuery, rangeBound } from '../../http/schemas.ts';
import { parseDateTime } from '../../lib/time.ts';

export const MAX_TAGS = 25;

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
    id: z.string().openapi({ example: 'hl_8Qm2ZtY4pLk9Rb1Xc7Vn3WsA' }),
    timestamp_ms: z.number().int(),
    text: z.string(),
  })
  .openapi('Highlight');

export const Speaker = z.object({ label: z.string(), name: z.string() }).openapi('Speaker');

export const Segment = z
  .object({ speaker: z.string(), start_ms: z.number().int(), end_ms: z.number().int(), text: z.string() })
  .openapi('Segment');

export const EmbeddedActionItem = z
  .object({
    id: z.string(),
    text: z.string(),
    assignee: z.string().optional(),
    due: z.string().optional().openapi({ format: 'date' }),
    status: z.enum(['pending', 'completed']),
  })
  .openapi('EmbeddedActionItem');

export const NoteStatus = z.enum(['processing', 'ready', 'failed']);

export const NoteListItem = z
  .object({
    id: z.string().openapi({ example: 'note_3hX9kQ2mLp7Vb4Zt1Yc8Rn6W' }),
    title: z.string(),
    summary: z.string(),
    created_at: z.string().openapi({ format: 'date-time' }),
    duration_seconds: z.number().int(),
    recording_id: z.string().optional(),
    tags: z.array(z.string()),
    highlights: z.number().int().optional().openapi({ description: 'Number of highlights.' }),
  })
  .openapi('NoteListItem');

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
    status: NoteStatus.openapi({ description: '(ext) processing state.' }),
    failure_reason: z.string().optional().openapi({ description: '(ext) why processing failed.' }),
    segments: z.array(Segment).optional().openapi({ description: '(ext) with `?include=segments`.' }),
  })
  .openapi('NoteDetail');

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
      description: '(ext) `segments` adds timed segments.',
    }),
});

export const NoteIdParam = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'note_3hX9kQ2mLp7Vb4Zt1Yc8Rn6W' }),
});

export const UpdateNoteBody = z
  .strictObject({ title: Title.optional(), tags: Tags.optional() })
  .refine((b) => b.title !== undefined || b.tags !== undefined, {
    message: 'give at least one of title, tags',
  })
  .openapi('UpdateNote');

export const UpdateNoteResponse = z
  .object({ id: z.string(), title: z.string(), tags: z.array(z.string()) })
  .openapi('UpdatedNote');

export const DeletedResponse = z.object({ deleted: z.literal(true) }).openapi('Deleted');

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
  })
  .refine((b) => (b.transcript === undefined) !== (b.segments === undefined), {
    message: 'give exactly one of transcript, segments',
  })
  .openapi('CreateNote');

export type CreateNoteInput = z.infer<typeof CreateNoteBody>;
export type ListNotesInput = z.infer<typeof ListNotesQuery>;
