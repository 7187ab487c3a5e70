import { z } from 'zod';
import type { ImportedHighlight, ImportedNote, ImportedSegment } from '../imported-note.ts';
import { SourceItemError } from './decode-text.ts';

/** A content node of a lifelog in Limitless's API (`GET /v1/lifelogs`): headings, blockquotes (utterances), children. */
interface ContentNode {
  type: string;
  content?: string | null | undefined;
  startTime?: string | null | undefined;
  endTime?: string | null | undefined;
  startOffsetMs?: number | null | undefined;
  endOffsetMs?: number | null | undefined;
  speakerName?: string | null | undefined;
  speakerIdentifier?: string | null | undefined;
  children?: ContentNode[] | null | undefined;
}

const ContentNode: z.ZodType<ContentNode> = z.lazy(() =>
  z.object({
    type: z.string(),
    content: z.string().nullish(),
    startTime: z.string().nullish(),
    endTime: z.string().nullish(),
    startOffsetMs: z.number().nullish(),
    endOffsetMs: z.number().nullish(),
    speakerName: z.string().nullish(),
    speakerIdentifier: z.string().nullish(),
    children: z.array(ContentNode).nullish(),
  }),
);

const Lifelog = z.object({
  id: z.string().min(1),
  title: z.string().nullish(),
  startTime: z.string(),
  contents: z.array(ContentNode).nullish(),
});

/**
 * A lifelog as Limitless's API gives it: `contents` nodes in order, `blockquote` ones being utterances with their
 * speaker (`speakerIdentifier: "user"` is the wearer, named `me` when given) and times, `heading1` the title,
 * `heading2`/`heading3` topics kept as highlights. Known by its id there.
 */
export function parseLimitlessLifelog(name: string, json: unknown, me?: string): ImportedNote {
  const parsed = Lifelog.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SourceItemError(
      `not a Limitless lifelog: ${issue?.path.join('.') || 'value'}: ${issue?.message}`,
    );
  }
  const lifelog = parsed.data;
  const startMs = Date.parse(lifelog.startTime);
  if (Number.isNaN(startMs))
    throw new SourceItemError('not a Limitless lifelog: startTime is not a date-time');
  let title = lifelog.title?.trim() || undefined;
  const headings: { text: string; before: number }[] = [];
  const segments: ImportedSegment[] = [];
  const names = new Map<string, string>();
  const visit = (node: ContentNode) => {
    const text = node.content?.trim() ?? '';
    if (node.type === 'heading1' && text) title ??= text;
    else if ((node.type === 'heading2' || node.type === 'heading3') && text)
      headings.push({ text, before: segments.length });
    else if (node.type === 'blockquote' && text) {
      const at = (time: string | null | undefined, offset: number | null | undefined) => {
        const absolute = time ? Date.parse(time) - startMs : Number.NaN;
        return Math.max(0, Math.round(Number.isNaN(absolute) ? (offset ?? 0) : absolute));
      };
      const start = at(node.startTime, node.startOffsetMs);
      const label = node.speakerIdentifier === 'user' ? 'me' : node.speakerName?.trim() || 'Unknown';
      if (!names.has(label))
        names.set(label, label === 'me' ? (me ?? node.speakerName?.trim() ?? 'Me') : label);
      segments.push({
        speaker: label,
        start_ms: start,
        end_ms: Math.max(start, at(node.endTime, node.endOffsetMs)),
        text,
      });
    }
    for (const child of node.children ?? []) visit(child);
  };
  for (const node of lifelog.contents ?? []) visit(node);
  if (!segments.length) throw new SourceItemError('the lifelog has no utterances');
  const highlights: ImportedHighlight[] = headings.map((h) => ({
    text: h.text,
    timestamp_ms: segments[Math.min(h.before, segments.length - 1)]?.start_ms ?? 0,
  }));
  return {
    source: 'limitless',
    source_id: lifelog.id,
    item: name,
    created_at: new Date(startMs).toISOString(),
    ...(title ? { title } : {}),
    segments,
    speakers: [...names].map(([label, n]) => ({ label, name: n })),
    action_items: [],
    highlights,
    tags: [],
  };
}
