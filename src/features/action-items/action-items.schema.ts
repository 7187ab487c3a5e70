import { z } from '@hono/zod-openapi';
import { EXAMPLE } from '../../lib/schemas/examples.ts';
import { CalendarDate, codePoints, lineText, Meta, PageQuery } from '../../lib/schemas/fields.ts';

/** The action items of the document's example note (see EXAMPLE): one pending, one completed. */
const EXAMPLE_ACTION_ITEM = {
  id: EXAMPLE.actionItemId,
  text: 'Send the revised Q3 forecast to finance',
  assignee: 'Maya Chen',
  due: '2026-12-04',
  status: 'pending' as const,
  note_id: EXAMPLE.noteId,
  created_at: EXAMPLE.processedAt,
};
const EXAMPLE_COMPLETED_ACTION_ITEM = {
  id: EXAMPLE.secondActionItemId,
  text: 'Book the venue for the offsite',
  assignee: 'Daniel Okafor',
  status: 'completed' as const,
  note_id: EXAMPLE.noteId,
  created_at: EXAMPLE.processedAt,
  completed_at: '2026-11-24T09:12:45.031Z',
};

export const ACTION_ITEM_STATUSES = ['pending', 'completed'] as const;
export const STATUS_FILTERS = ['pending', 'completed', 'all'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

export const MAX_TEXT = 1000;
export const MAX_ASSIGNEE = 200;

export const ActionItemStatus = z.enum(ACTION_ITEM_STATUSES).openapi({ example: 'pending' });

/** Action item, list form (docs/api.md, General): `assignee`, `due` and `completed_at` are omitted when they have no value. */
export const ActionItem = z
  .object({
    id: z.string().openapi({ example: EXAMPLE.actionItemId }),
    text: z.string().openapi({ example: 'Send the revised Q3 forecast to finance' }),
    assignee: z.string().optional().openapi({ example: 'Maya Chen' }),
    due: z.string().optional().openapi({ format: 'date', example: '2026-12-04' }),
    status: ActionItemStatus,
    note_id: z.string().openapi({ example: EXAMPLE.noteId }),
    created_at: z.string().openapi({ format: 'date-time', example: EXAMPLE.processedAt }),
    completed_at: z
      .string()
      .optional()
      .openapi({ format: 'date-time', description: 'Present only while the status is `completed`.' }),
  })
  .openapi('ActionItem', { example: EXAMPLE_ACTION_ITEM });

/** `?status=`: one of pending, completed, all (default all). An empty value counts as absent. */
const StatusFilterParam = z
  .string()
  .optional()
  .transform((v, ctx): StatusFilter => {
    if (v === undefined || v === '') return 'all';
    if (!(STATUS_FILTERS as readonly string[]).includes(v)) {
      ctx.addIssue({ code: 'custom', message: `must be one of ${STATUS_FILTERS.join(', ')}` });
      return z.NEVER;
    }
    return v as StatusFilter;
  })
  .openapi({
    param: { name: 'status', in: 'query' },
    type: 'string',
    enum: [...STATUS_FILTERS],
    default: 'all',
    description: 'Only items in this state; `all` (the default) lists both.',
  } as never);

/** An optional free-text query filter: trimmed, an empty value counts as absent. */
const optionalTrimmed = (name: string, max: number, description: string) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .optional()
    .transform((v) => (v?.trim() ? v.trim() : undefined))
    .openapi({ param: { name, in: 'query' }, type: 'string', description } as never);

export const ListActionItemsQuery = z.object({
  status: StatusFilterParam,
  ...PageQuery,
  note_id: optionalTrimmed('note_id', 100, 'Only the items of this note.'),
  assignee: optionalTrimmed(
    'assignee',
    MAX_ASSIGNEE * 4,
    'Only items assigned to this person (exact name, case-insensitive).',
  ),
});
export type ListActionItemsInput = z.infer<typeof ListActionItemsQuery>;

export const ActionItemList = z
  .object({
    data: z.array(ActionItem),
    meta: Meta,
  })
  .openapi('ActionItemList', {
    example: {
      data: [EXAMPLE_ACTION_ITEM, EXAMPLE_COMPLETED_ACTION_ITEM],
      meta: { page: 1, per_page: 20, total: 2 },
    },
  });

export const ActionItemIdParam = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: EXAMPLE.actionItemId }),
});

// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find control characters
const CONTROL_EXCEPT_WHITESPACE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Item text: 1–1000 code points after trimming; may span lines and hold tabs, no other control characters. */
const Text = z
  .string()
  .transform((v) => v.trim())
  .refine((v) => codePoints(v) >= 1 && codePoints(v) <= MAX_TEXT, {
    message: `must be 1–${MAX_TEXT} characters after trimming`,
  })
  .refine((v) => !CONTROL_EXCEPT_WHITESPACE.test(v), {
    message: 'must not contain control characters other than newlines and tabs',
  })
  .openapi({
    type: 'string',
    minLength: 1,
    maxLength: MAX_TEXT,
    example: 'Book the venue for the offsite',
  } as never);

const Assignee = lineText(1, MAX_ASSIGNEE).openapi({
  type: 'string',
  minLength: 1,
  maxLength: MAX_ASSIGNEE,
  example: 'Daniel Okafor',
} as never);

export const UpdateActionItemBody = z
  .strictObject({
    status: ActionItemStatus.optional().openapi({
      description:
        '`completed` sets `completed_at` (kept if it already was completed); `pending` removes it.',
    }),
    text: Text.optional(),
    due: CalendarDate.nullable()
      .optional()
      .openapi({
        type: ['string', 'null'],
        format: 'date',
        example: '2026-12-04',
        description: 'A real calendar date `YYYY-MM-DD`, or `null` to clear.',
      } as never),
    assignee: Assignee.nullable()
      .optional()
      .openapi({
        type: ['string', 'null'],
        minLength: 1,
        maxLength: MAX_ASSIGNEE,
        example: 'Daniel Okafor',
        description: 'Who does it (1–200 characters, no control characters), or `null` to clear.',
      } as never),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'give at least one of status, text, due, assignee',
  })
  .openapi('UpdateActionItem', { minProperties: 1 } as never);
export type UpdateActionItemInput = z.infer<typeof UpdateActionItemBody>;
