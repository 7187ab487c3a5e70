import { z } from 'zod';
import { MAX_PAGE } from '../../../lib/schemas/fields.ts';
import {
  ActionItem,
  ActionItemList,
  ListActionItemsQuery,
  MAX_ASSIGNEE,
  MAX_TEXT,
  STATUS_FILTERS,
  UpdateActionItemBody,
} from '../../action-items/action-items.schema.ts';
import { listActionItems, updateActionItem } from '../../action-items/action-items.service.ts';
import { asQuery, defined, intIn, parseOrThrow } from '../mcp.schema.ts';
import { defineTool, OVERWRITING_UPDATE, READ_ONLY } from './tool.ts';

const ITEM_NOT_FOUND_HINT =
  "Find valid action item ids (ai_…) with list_action_items (filter by note_id to see one note's items). A " +
  'live key and a test key see separate data, so ids never carry over between them.';

export const listActionItemsTool = defineTool({
  name: 'list_action_items',
  title: 'List action items',
  description:
    "Lists the action items (to-dos) extracted from the user's meetings, across all notes, newest first: text, " +
    'assignee, due date, status and the note they come from. Filter by `status` (e.g. pending for open work), ' +
    '`note_id` or `assignee`. Results are paged: `meta.total` counts all matches; request the next `page` while ' +
    'page × per_page < total.',
  scope: 'actions:read',
  input: z.strictObject({
    status: z
      .enum(STATUS_FILTERS, { error: `must be one of ${STATUS_FILTERS.join(', ')}` })
      .optional()
      .describe('pending (open), completed, or all (the default).'),
    note_id: z
      .string()
      .max(100, 'must be at most 100 characters')
      .optional()
      .describe('Only the items of this note (note_…).'),
    assignee: z
      .string()
      .max(MAX_ASSIGNEE * 4, `must be at most ${MAX_ASSIGNEE * 4} characters`)
      .optional()
      .describe('Only items assigned to this person: the exact name as shown on items, case-insensitive.'),
    page: intIn(1, MAX_PAGE).optional().describe('Page number, starting at 1. Default 1.'),
    per_page: intIn(1, 100).optional().describe('Items per page, 1–100. Default 20.'),
  }),
  output: ActionItemList,
  annotations: READ_ONLY,
  notFoundHint: ITEM_NOT_FOUND_HINT,
  run: ({ deps, actor }, args) =>
    listActionItems(
      deps,
      actor,
      parseOrThrow(ListActionItemsQuery, {
        ...args,
        page: asQuery(args.page),
        per_page: asQuery(args.per_page),
      }),
    ),
});

export const updateActionItemTool = defineTool({
  name: 'update_action_item',
  title: 'Update an action item',
  description:
    'Marks an action item completed or pending again, and/or changes its text, due date or assignee. Give only ' +
    'the fields to change; `null` clears `due` or `assignee`. Completing sets `completed_at`; returns the whole ' +
    'item after the update.',
  scope: 'actions:write',
  input: z.strictObject({
    action_item_id: z
      .string()
      .min(1)
      .describe('The action item id (ai_…), as returned by list_action_items or get_note.'),
    status: z
      .enum(['pending', 'completed'])
      .optional()
      .describe('completed when it is done; pending to reopen it.'),
    text: z
      .string()
      .meta({ minLength: 1, maxLength: MAX_TEXT })
      .optional()
      .describe(`New wording of the item, 1–${MAX_TEXT} characters.`),
    due: z
      .string()
      .meta({ format: 'date' })
      .nullable()
      .optional()
      .describe('Due date as YYYY-MM-DD (a real calendar date), or null to remove the due date.'),
    assignee: z
      .string()
      .meta({ minLength: 1, maxLength: MAX_ASSIGNEE })
      .nullable()
      .optional()
      .describe(`Who does it (1–${MAX_ASSIGNEE} characters), or null to unassign.`),
  }),
  output: ActionItem,
  annotations: OVERWRITING_UPDATE,
  notFoundHint: ITEM_NOT_FOUND_HINT,
  run: ({ deps, actor }, { action_item_id, ...changes }) =>
    updateActionItem(deps, actor, action_item_id, parseOrThrow(UpdateActionItemBody, defined(changes))),
});
