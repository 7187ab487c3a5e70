import { z } from 'zod';
import { isCalendarDate } from '../../../lib/time.ts';
import type { ExtractedActionItem } from '../extract-action-items.ts';
import { MAX_TITLE_LENGTH } from '../make-title.ts';
import { truncateText } from '../sentences.ts';
import { strictArraySchema, strictObjectSchema } from './strict-object-schema.ts';

/** The notes of consecutive parts of one meeting, to be merged into one (title, summary, action items). */
export interface PartNotes {
  title: string;
  summary: string;
  action_items: ExtractedActionItem[];
  /** The first and last transcript lines the notes cover. */
  from: number;
  to: number;
}

/** The properties of an action item in every answer that lists them: the analysis and the merge. */
export const ACTION_ITEM_PROPERTIES = {
  text: { type: 'string', description: 'The task, starting with a verb.' },
  assignee: { type: ['string', 'null'], description: "The responsible person's name, or null." },
  due: { type: ['string', 'null'], description: 'Due date YYYY-MM-DD, or null.' },
} as const;

/** The summary property of the analysis and the merge. */
export const SUMMARY_PROPERTY = {
  type: 'string',
  description: '3 to 6 sentences covering the whole meeting.',
} as const;

/** The merge answer: one title and summary, and each distinct task once with the candidates it covers. */
export const MERGE_JSON_SCHEMA = strictObjectSchema({
  title: {
    type: 'string',
    description: `What the whole meeting was about, at most ${MAX_TITLE_LENGTH} characters.`,
  },
  summary: SUMMARY_PROPERTY,
  action_items: strictArraySchema({
    ...ACTION_ITEM_PROPERTIES,
    sources: {
      type: 'array',
      items: { type: 'integer' },
      description: 'The numbers (#n) of every candidate task this item stands for.',
    },
  }),
});

/** What a part's analysis and the merge both answer: a title, a summary and action items (shape only). */
export const ModelNotes = z.object({
  title: z.string().refine((v) => v.trim().length > 0 && !/^untitled\b/i.test(v.trim()), 'title is empty'),
  summary: z.string().refine((v) => v.trim().length > 0, 'summary is empty'),
});
export const ModelActionItem = z.object({
  text: z.string(),
  assignee: z.string().nullable().optional(),
  due: z.string().nullable().optional(),
});

export const MergeAnswer = ModelNotes.extend({
  action_items: z.array(ModelActionItem.extend({ sources: z.array(z.number().int()) })),
});
export type MergeAnswer = z.infer<typeof MergeAnswer>;

export const MERGE_SYSTEM_PROMPT = [
  'You merge the notes of consecutive parts of one meeting into the notes of the whole meeting. Answer with',
  'JSON only, following the schema.',
  `- title: what the whole meeting was about, at most ${MAX_TITLE_LENGTH} characters, never "Untitled".`,
  '- summary: 3 to 6 plain sentences covering the decisions and main topics of the whole meeting.',
  '- action_items: every distinct task among the numbered candidates, once. Candidates that are the same task',
  '  (said twice, or in two parts) become one item. sources: the numbers of every candidate the item stands',
  '  for; every candidate must be in the sources of exactly one item. Keep their assignee and due date. Do not',
  '  add tasks that are not among the candidates.',
].join('\n');

/** The user message of a merge: the parts' notes in order, then the candidate tasks numbered from 0. */
export function renderMerge(meetingDate: string, parts: readonly PartNotes[]): string {
  const candidates = parts.flatMap((p) => p.action_items);
  return [
    `Meeting date: ${meetingDate}.`,
    ...parts.map((p, i) => `Part ${i + 1} (lines ${p.from} to ${p.to}): ${p.title}. ${p.summary}`),
    candidates.length ? 'Candidate action items:' : 'Candidate action items: none.',
    ...candidates.map(
      (c, i) =>
        `#${i} ${c.text}${c.assignee ? ` (assignee: ${c.assignee})` : ''}${c.due ? ` (due: ${c.due})` : ''}`,
    ),
  ].join('\n');
}

/**
 * The model's merge, checked against its candidates: an item stands for the candidates it names (one item each,
 * the first to name it), keeps an assignee and due date from them when the model dropped them, and a candidate
 * no usable item names is kept as it was. So a task is never lost, and never invented.
 */
export function applyMerge(
  parts: readonly PartNotes[],
  answer: MergeAnswer,
  normalizeItem: (item: MergeAnswer['action_items'][number]) => ExtractedActionItem | undefined,
): PartNotes {
  const candidates = parts.flatMap((p) => p.action_items);
  const taken = new Set<number>();
  const items: ExtractedActionItem[] = [];
  const texts = new Set<string>();
  const add = (item: ExtractedActionItem) => {
    const key = item.text.toLowerCase();
    if (texts.has(key)) return;
    texts.add(key);
    items.push(item);
  };
  for (const item of answer.action_items) {
    const sources = item.sources.filter((n) => n >= 0 && n < candidates.length && !taken.has(n));
    if (!sources.length) continue;
    const from = sources.map((n) => candidates[n]!);
    const normalized = normalizeItem({
      ...item,
      assignee: item.assignee || from.find((c) => c.assignee)?.assignee || null,
      due: (item.due && isCalendarDate(item.due) ? item.due : null) || from.find((c) => c.due)?.due || null,
    });
    if (!normalized) continue;
    for (const n of sources) taken.add(n);
    add(normalized);
  }
  candidates.forEach((c, n) => {
    if (!taken.has(n)) add(c);
  });
  return {
    title: answer.title,
    summary: answer.summary,
    action_items: items,
    from: parts[0]?.from ?? 0,
    to: parts.at(-1)?.to ?? 0,
  };
}

/** A merge without the model (its answer unusable): the first title, the summaries joined, every task kept. */
export function mergeWithoutModel(parts: readonly PartNotes[], maxSummary: number): PartNotes {
  const seen = new Set<string>();
  const items: ExtractedActionItem[] = [];
  for (const item of parts.flatMap((p) => p.action_items)) {
    const key = item.text.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    items.push(item);
  }
  return {
    title: parts[0]?.title ?? '',
    summary: truncateText(parts.map((p) => p.summary).join(' '), maxSummary),
    action_items: items,
    from: parts[0]?.from ?? 0,
    to: parts.at(-1)?.to ?? 0,
  };
}
