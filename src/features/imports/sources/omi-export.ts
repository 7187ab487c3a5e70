import { z } from 'zod';
import type { ImportedActionItem, ImportedNote, ImportItemError } from '../imported-note.ts';
import { SourceItemError } from './decode-text.ts';

/** An ISO 8601 time as Omi writes it (with or without a zone: Omi stores UTC). */
const OmiTime = z
  .string()
  .transform((s) => new Date(/[zZ]|[+-]\d{2}:?\d{2}$/.test(s) ? s : `${s}Z`))
  .refine((d) => !Number.isNaN(d.getTime()), 'not a date-time')
  .transform((d) => d.toISOString());

const OmiActionItem = z.object({
  description: z.string().trim().min(1),
  completed: z.boolean().optional().default(false),
  deleted: z.boolean().optional(),
  due_at: OmiTime.nullish(),
  completed_at: OmiTime.nullish(),
  created_at: OmiTime.nullish(),
  conversation_id: z.string().nullish(),
});
type OmiActionItem = z.infer<typeof OmiActionItem>;

/** A conversation as Omi's API and app export write it (docs/doc/developer/api/conversations.mdx). */
const OmiConversation = z.object({
  id: z.string().min(1),
  created_at: OmiTime,
  started_at: OmiTime.nullish(),
  deleted: z.boolean().optional(),
  structured: z
    .object({
      title: z.string().optional(),
      action_items: z.array(z.unknown()).optional().default([]),
    })
    .optional(),
  transcript_segments: z.array(
    z.object({
      text: z.string(),
      speaker: z.string().nullish(),
      speaker_id: z.number().int().nullish(),
      is_user: z.boolean().optional(),
      person_id: z.string().nullish(),
      start: z.number().nonnegative(),
      end: z.number().nonnegative(),
    }),
  ),
});

const OmiPerson = z.object({ id: z.string(), name: z.string().trim().min(1) });

/** What an Omi export says beside its conversations: people's names and the export's loose action items. */
export interface OmiExportContext {
  names: Map<string, string>;
  itemsByConversation: Map<string, OmiActionItem[]>;
}

/** The context of an export from its `people` and top-level `action_items` (either may be absent). */
export function omiExportContext(people: unknown, looseItems: unknown): OmiExportContext {
  const names = new Map<string, string>();
  for (const p of Array.isArray(people) ? people : []) {
    const person = OmiPerson.safeParse(p);
    if (person.success) names.set(person.data.id, person.data.name);
  }
  const itemsByConversation = new Map<string, OmiActionItem[]>();
  for (const raw of Array.isArray(looseItems) ? looseItems : []) {
    const item = OmiActionItem.safeParse(raw);
    if (!item.success || !item.data.conversation_id) continue;
    const list = itemsByConversation.get(item.data.conversation_id) ?? [];
    list.push(item.data);
    itemsByConversation.set(item.data.conversation_id, list);
  }
  return { names, itemsByConversation };
}

/**
 * Omi's "Export All Data" file (an object with `conversations`, `action_items`, `people`, …) or its older bare
 * array of conversations, parsed whole. A conversation's own action items and the export's top-level ones for it
 * are merged (by text); speakers are named from `people` (`person_id`), the wearer (`is_user`) from `me`. A
 * conversation that does not have the documented shape is reported by its position and the others are read.
 */
export function parseOmiExport(
  fileName: string,
  json: unknown,
  me?: string,
): { notes: ImportedNote[]; errors: ImportItemError[] } {
  const root = Array.isArray(json) ? { conversations: json } : json;
  if (
    typeof root !== 'object' ||
    root === null ||
    !Array.isArray((root as { conversations?: unknown }).conversations)
  ) {
    throw new SourceItemError(NOT_AN_OMI_EXPORT);
  }
  const { conversations, action_items, people } = root as {
    conversations: unknown[];
    action_items?: unknown;
    people?: unknown;
  };
  const context = omiExportContext(people, action_items);
  const notes: ImportedNote[] = [];
  const errors: ImportItemError[] = [];
  conversations.forEach((raw, i) => {
    const read = readOmiConversation(fileName, i, raw, context, me);
    if (read && 'note' in read) notes.push(read.note);
    else if (read) errors.push(read.error);
  });
  return { notes, errors };
}

export const NOT_AN_OMI_EXPORT =
  'not an Omi export: expected an array of conversations or an object with "conversations"';

/**
 * One conversation of an export (the `i`-th) as a note, or the error naming it; undefined for a conversation
 * Omi marks deleted.
 */
export function readOmiConversation(
  fileName: string,
  i: number,
  raw: unknown,
  { names, itemsByConversation }: OmiExportContext,
  me?: string,
): { note: ImportedNote } | { error: ImportItemError } | undefined {
  const item = `${fileName}: conversations[${i}]`;
  const parsed = OmiConversation.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      error: {
        item,
        message: `not an Omi conversation: ${issue?.path.join('.') || 'value'}: ${issue?.message}`,
      },
    };
  }
  const c = parsed.data;
  if (c.deleted) return undefined;
  const segments = c.transcript_segments
    .filter((s) => s.text.trim())
    .map((s) => ({
      speaker: s.is_user ? 'me' : (s.speaker ?? `SPEAKER_${String(s.speaker_id ?? 0).padStart(2, '0')}`),
      start_ms: Math.round(s.start * 1000),
      end_ms: Math.round(Math.max(s.end, s.start) * 1000),
      text: s.text.trim(),
      person: s.person_id ? names.get(s.person_id) : undefined,
    }));
  if (!segments.length)
    return { error: { item: `${item} (${c.id})`, message: 'the conversation has no transcript' } };
  const speakerNames = new Map<string, string>();
  for (const s of segments) {
    if (speakerNames.has(s.speaker)) continue;
    speakerNames.set(s.speaker, s.speaker === 'me' ? (me ?? 'Me') : (s.person ?? s.speaker));
  }
  const own = (c.structured?.action_items ?? []).flatMap((a) => {
    const parsedItem = OmiActionItem.safeParse(a);
    return parsedItem.success ? [parsedItem.data] : [];
  });
  const merged = new Map<string, OmiActionItem>();
  for (const a of [...own, ...(itemsByConversation.get(c.id) ?? [])]) {
    if (!a.deleted && !merged.has(a.description)) merged.set(a.description, a);
  }
  const title = c.structured?.title?.trim();
  return {
    note: {
      source: 'omi',
      source_id: c.id,
      item: `${item} (${c.id})`,
      created_at: c.started_at ?? c.created_at,
      ...(title ? { title } : {}),
      segments: segments.map(({ person: _, ...s }) => s),
      speakers: [...speakerNames].map(([label, name]) => ({ label, name })),
      action_items: [...merged.values()].map(toActionItem),
      highlights: [],
      tags: [],
    },
  };
}

function toActionItem(a: OmiActionItem): ImportedActionItem {
  const completed = a.completed === true;
  return {
    text: a.description,
    assignee: null,
    due: a.due_at ? a.due_at.slice(0, 10) : null,
    status: completed ? 'completed' : 'pending',
    ...(a.created_at ? { created_at: a.created_at, updated_at: a.completed_at ?? a.created_at } : {}),
    completed_at: completed ? (a.completed_at ?? a.created_at ?? null) : null,
  };
}
