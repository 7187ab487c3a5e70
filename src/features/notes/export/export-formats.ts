/**
 * Export formats of a note: pure functions from the note's detail form (with segments) to text. No I/O,
 * no clock: the same note always exports to the same bytes. Every regex here is linear-time.
 */
import { clock } from '../../../lib/time.ts';

export const EXPORT_FORMATS = ['md', 'txt', 'srt', 'vtt', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The media type each format is served as (API.md). */
export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  md: 'text/markdown; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  srt: 'application/x-subrip; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

/** What an export reads: the note detail as `GET /v1/notes/:id?include=segments` returns it. */
export interface ExportableNote {
  id: string;
  title: string;
  summary: string;
  transcript: string;
  action_items: {
    id: string;
    text: string;
    assignee?: string;
    due?: string;
    status: 'pending' | 'completed';
  }[];
  highlights: { id: string; timestamp_ms: number; text: string }[];
  speakers: { label: string; name: string }[];
  tags: string[];
  created_at: string;
  duration_seconds: number;
  recording_id?: string;
  status: string;
  failure_reason?: string;
  segments?: { speaker: string; start_ms: number; end_ms: number; text: string }[];
}

/** The note in the format: the file's text. */
export function formatNote(note: ExportableNote, format: ExportFormat): string {
  switch (format) {
    case 'md':
      return toMarkdown(note);
    case 'txt':
      return toText(note);
    case 'srt':
      return toSrt(note);
    case 'vtt':
      return toVtt(note);
    case 'json':
      return `${JSON.stringify(note, null, 2)}\n`;
  }
}

/** One line of text: newlines and runs of whitespace become one space (a cue or list item stays one line). */
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** `HH:MM:SS<sep>mmm`: SRT uses `,`, WebVTT `.`. */
export function cueTime(ms: number, separator: ',' | '.'): string {
  const v = Math.max(0, Math.round(ms));
  const h = Math.floor(v / 3_600_000);
  const m = Math.floor((v % 3_600_000) / 60_000);
  const s = Math.floor((v % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(v % 1000, 3)}`;
}

/** A YAML double-quoted scalar: JSON's string syntax is a subset of it. */
const yamlString = (s: string) => JSON.stringify(s);
const yamlList = (items: readonly string[], indent = '  ') =>
  items.length ? items.map((i) => `\n${indent}- ${yamlString(i)}`).join('') : ' []';

/** The display name of each label (the label itself when the note has no name for it). */
function namesOf(note: ExportableNote): (label: string) => string {
  const names = new Map(note.speakers.map((s) => [s.label, s.name]));
  return (label) => names.get(label) || label;
}

/** The turns to print: timed segments when there are, else the transcript's `Label: text` lines. */
function turnsOf(
  note: ExportableNote,
): { speaker: string; start_ms?: number; end_ms?: number; text: string }[] {
  if (note.segments?.length) return note.segments;
  return note.transcript
    .split('\n')
    .filter((l) => l.trim())
    .map((line) => {
      const at = line.indexOf(': ');
      return at > 0 ? { speaker: line.slice(0, at), text: line.slice(at + 2) } : { speaker: '', text: line };
    });
}

/**
 * Markdown with YAML front matter (title, date, tags, speakers, duration, id, status), then the summary, the
 * action items as task-list checkboxes, the highlights with timestamps and the transcript with speaker names.
 * Obsidian, Logseq and static site generators read the front matter as the note's properties.
 */
export function toMarkdown(note: ExportableNote): string {
  const name = namesOf(note);
  const lines = [
    '---',
    `title: ${yamlString(note.title)}`,
    `date: ${yamlString(note.created_at)}`,
    `tags:${yamlList(note.tags)}`,
    `speakers:${yamlList(note.speakers.map((s) => s.name || s.label))}`,
    `duration_seconds: ${note.duration_seconds}`,
    `id: ${yamlString(note.id)}`,
    `status: ${yamlString(note.status)}`,
    ...(note.failure_reason ? [`failure_reason: ${yamlString(note.failure_reason)}`] : []),
    '---',
    '',
    `# ${oneLine(note.title)}`,
    '',
  ];
  if (note.summary.trim()) lines.push('## Summary', '', note.summary.trim(), '');
  if (note.action_items.length) {
    lines.push('## Action items', '');
    for (const a of note.action_items) {
      const extras = [a.assignee ? `@${a.assignee}` : '', a.due ? `due ${a.due}` : ''].filter(Boolean);
      lines.push(
        `- [${a.status === 'completed' ? 'x' : ' '}] ${oneLine(a.text)}${extras.length ? ` (${extras.join(', ')})` : ''}`,
      );
    }
    lines.push('');
  }
  if (note.highlights.length) {
    lines.push('## Highlights', '');
    for (const h of note.highlights) lines.push(`- [${clock(h.timestamp_ms)}] ${oneLine(h.text)}`);
    lines.push('');
  }
  const turns = turnsOf(note);
  if (turns.length) {
    lines.push('## Transcript', '');
    for (const t of turns) {
      const who = t.speaker ? `**${name(t.speaker)}**` : '';
      const when = t.start_ms !== undefined ? ` [${clock(t.start_ms)}]` : '';
      lines.push(`${who}${when}${who || when ? ': ' : ''}${oneLine(t.text)}`, '');
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** Plain text: title, date and tags, the summary, then one `Name: text` line per turn. */
export function toText(note: ExportableNote): string {
  const name = namesOf(note);
  const lines = [oneLine(note.title), note.created_at];
  if (note.tags.length) lines.push(`Tags: ${note.tags.join(', ')}`);
  lines.push('');
  if (note.summary.trim()) lines.push(note.summary.trim(), '');
  for (const t of turnsOf(note))
    lines.push(t.speaker ? `${name(t.speaker)}: ${oneLine(t.text)}` : oneLine(t.text));
  return `${lines.join('\n').trimEnd()}\n`;
}

/** Timed cues: the segments, or none for a note without them. */
function cues(note: ExportableNote) {
  return (note.segments ?? []).filter((s) => s.text.trim());
}

/**
 * SubRip: one numbered cue per segment, `Name: text` (the display name, so players show who speaks). Importing it
 * again (`POST /v1/notes` with it as `transcript`) gives the same segments, the speakers named by their names.
 */
export function toSrt(note: ExportableNote): string {
  const name = namesOf(note);
  return cues(note)
    .map(
      (s, i) =>
        `${i + 1}\n${cueTime(s.start_ms, ',')} --> ${cueTime(Math.max(s.start_ms, s.end_ms), ',')}\n` +
        `${name(s.speaker)}: ${oneLine(s.text)}\n`,
    )
    .join('\n');
}

/** WebVTT text escapes (`&`, `<`, `>`), so cue text cannot open a tag. */
const vttEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** WebVTT: one cue per segment with the speaker as a voice span (`<v Name>`); round-trips like SRT. */
export function toVtt(note: ExportableNote): string {
  const name = namesOf(note);
  const body = cues(note)
    .map(
      (s) =>
        `${cueTime(s.start_ms, '.')} --> ${cueTime(Math.max(s.start_ms, s.end_ms), '.')}\n` +
        `<v ${vttEscape(oneLine(name(s.speaker)))}>${vttEscape(oneLine(s.text))}\n`,
    )
    .join('\n');
  return `WEBVTT\n\n${body}`;
}

/** Characters file systems or Obsidian links cannot take in a name: `\ / : * ? " < > | # ^ [ ]` and controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
const UNSAFE_NAME = /[\\/:*?"<>|#^[\]\u0000-\u001f\u007f]+/g;

/**
 * The file name of an exported note without extension: `YYYY-MM-DD Title`, with characters that file systems or
 * Obsidian links refuse replaced, whitespace collapsed, at most 100 characters; never empty or a dot name.
 */
export function exportBaseName(note: Pick<ExportableNote, 'title' | 'created_at'>): string {
  const date = note.created_at.slice(0, 10);
  const title = [...note.title.replace(UNSAFE_NAME, ' ').replace(/\s+/g, ' ').trim()]
    .slice(0, 88)
    .join('')
    .replace(/[. ]+$/, '');
  return title ? `${date} ${title}` : date;
}

/** Without leading and trailing dots and spaces (no dot name, no `..`), by index: linear on any input. */
function trimDotsAndSpaces(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value[start] === '.' || value[start] === ' ')) start++;
  while (end > start && (value[end - 1] === '.' || value[end - 1] === ' ')) end--;
  return value.slice(start, end);
}

/** The same name for a `Content-Disposition` header: `filename` ASCII-only, `filename*` the full UTF-8 name. */
export function contentDisposition(base: string, format: ExportFormat): string {
  const file = `${base}.${format}`;
  // Unsafe characters are removed after normalising: NFKD turns fullwidth `／` or `＜` into ASCII ones.
  const asciiBase = base
    .normalize('NFKD')
    .replace(/[^\u0020-\u007e]/g, '')
    .replace(UNSAFE_NAME, ' ')
    .replace(/\s+/g, ' ');
  const ascii = `${trimDotsAndSpaces(asciiBase) || 'note'}.${format}`;
  const encoded = encodeURIComponent(file).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
