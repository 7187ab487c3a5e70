import type { ImportedHighlight, ImportedNote, ImportedSegment } from '../imported-note.ts';
import { SourceItemError } from './decode-text.ts';

/**
 * A lifelog of a Limitless export (`lifelogs/2025-10-08_07h00m25s_Title-slug.md`): an H1 title, H2/H3 headings
 * (Limitless's own topic summaries, kept as highlights) and one utterance per quoted line,
 * `> [speaker](#startMs=…&endMs=…): text`, with epoch milliseconds. Speaker `1` is the wearer of the pendant,
 * named `me` when given; other numbered speakers are "Speaker N"; a named speaker keeps its name. Parsed line by
 * line with string operations (no backtracking on hostile text).
 */
export function parseLimitlessMarkdown(fileName: string, text: string, me?: string): ImportedNote {
  const base = fileName.replace(/^.*[\\/]/, '').replace(/\.md$/i, '');
  const fromName = timeFromFileName(base);
  let title: string | undefined;
  const headings: { text: string; before: number }[] = [];
  const raw: ImportedSegment[] = [];
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (line.startsWith('# ')) {
      title ??= line.slice(2).trim() || undefined;
    } else if (line.startsWith('## ') || line.startsWith('### ')) {
      const heading = line.replace(/^#{2,3} /, '').trim();
      if (heading) headings.push({ text: heading, before: raw.length });
    } else if (line.startsWith('>')) {
      const utterance = parseUtterance(line.slice(1).trimStart());
      if (utterance) raw.push(utterance);
    }
  }
  if (!raw.length)
    throw new SourceItemError('no utterances found (expected lines like "> [1](#startMs=…&endMs=…): text")');
  let first = Number.POSITIVE_INFINITY;
  for (const s of raw) first = Math.min(first, s.start_ms);
  const segments = raw.map((s) => ({
    ...s,
    start_ms: s.start_ms - first,
    end_ms: Math.max(s.end_ms, s.start_ms) - first,
  }));
  const createdAt = first > EPOCH_MS_FLOOR ? new Date(first).toISOString() : fromName;
  if (!createdAt)
    throw new SourceItemError('no time found: neither the file name nor the utterances give one');
  const highlights: ImportedHighlight[] = headings.map((h) => ({
    text: h.text,
    timestamp_ms: segments[Math.min(h.before, segments.length - 1)]?.start_ms ?? 0,
  }));
  const labels = [...new Set(segments.map((s) => s.speaker))];
  return {
    source: 'limitless',
    source_id: base,
    item: fileName,
    created_at: createdAt,
    ...(title ? { title } : {}),
    segments,
    speakers: labels.map((label) => ({ label, name: speakerName(label, me) })),
    action_items: [],
    highlights,
    tags: [],
  };
}

/** Utterance times are epoch milliseconds; anything below this (2001) is an offset, not a date. */
const EPOCH_MS_FLOOR = 1e12;

function speakerName(label: string, me: string | undefined): string {
  if (label === '1' && me) return me;
  return /^\d+$/.test(label) ? `Speaker ${label}` : label;
}

/** `[speaker](#startMs=1&endMs=2): text` → a segment; anything else is not an utterance. */
function parseUtterance(line: string): ImportedSegment | undefined {
  if (!line.startsWith('[')) return undefined;
  const close = line.indexOf('](#');
  if (close < 0) return undefined;
  const speaker = line.slice(1, close).trim();
  const paramsEnd = line.indexOf('):', close);
  if (paramsEnd < 0 || !speaker) return undefined;
  const params = new URLSearchParams(line.slice(close + 3, paramsEnd));
  const start = Number(params.get('startMs'));
  const end = Number(params.get('endMs') ?? params.get('startMs'));
  const text = line.slice(paramsEnd + 2).trim();
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || !text) return undefined;
  return { speaker, start_ms: start, end_ms: end, text };
}

/** `2025-10-08_07h00m25s_Title` → 2025-10-08T07:00:25.000Z (Limitless names files in UTC). */
function timeFromFileName(base: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})_(\d{2})h(\d{2})m(\d{2})s/.exec(base);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const date = new Date(Date.UTC(y ?? 0, (mo ?? 1) - 1, d, h, mi, s));
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
