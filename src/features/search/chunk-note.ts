/** Which part of a note a chunk comes from. */
export type ChunkKind = 'title' | 'summary' | 'highlight' | 'action_item' | 'transcript';

/** A searchable piece of a note: embedded and keyword-indexed on its own. */
export interface Chunk {
  kind: ChunkKind;
  /** Order within the note (title first, then summary, highlights, action items, transcript). */
  position: number;
  /** Where in the recording it starts: transcript passages and highlights. */
  startMs: number | null;
  /** Transcript passages: the start time of each line (one speaker turn or part of one). */
  lineStarts?: number[];
  text: string;
}

/** What a note contributes to the index. */
export interface NoteContent {
  title: string;
  summary: string;
  segments: readonly { speaker: string; start_ms: number; end_ms: number; text: string }[];
  /** Display names of speaker labels. */
  speakers: readonly { label: string; name: string }[];
  highlights: readonly { timestamp_ms: number; text: string }[];
  actionItems: readonly { text: string; assignee: string | null }[];
}

export interface ChunkOptions {
  /** A passage is closed once it holds at least this many words… */
  targetWords: number;
  /** …and never grows beyond this many (a longer turn is split at sentence ends). */
  maxWords: number;
}

/**
 * About 120 words: long enough to carry a topic (a few speaker turns), short enough that the snippet shown
 * is the part that answers the query. Measured on QMSum (docs/quality.md).
 */
export const DEFAULT_CHUNKING: ChunkOptions = { targetWords: 120, maxWords: 200 };

// Annotation marks of transcription tools (`{vocalsound}`, `{disfmarker}`, `[laughter]`): noise for search.
const ANNOTATION = /\{[a-z_]+\}|\[(?:laughter|laughs|crosstalk|inaudible|silence|music|noise|applause)\]/gi;

/** Transcript text without annotation marks, single-spaced. */
export function cleanText(text: string): string {
  return text.replace(ANNOTATION, ' ').replace(/\s+/g, ' ').trim();
}

const countWords = (text: string) => (text.match(/\S+/g) ?? []).length;

/**
 * Splits a note into chunks: the title, the summary (in pieces of at most `maxWords`), each highlight, each
 * action item, and the transcript as passages of consecutive speaker turns (`Name: text` lines) that start
 * at a turn, with that turn's start time.
 */
export function chunkNote(note: NoteContent, options: ChunkOptions = DEFAULT_CHUNKING): Chunk[] {
  const chunks: Chunk[] = [];
  const push = (kind: ChunkKind, text: string, startMs: number | null) => {
    const clean = cleanText(text);
    if (clean) chunks.push({ kind, position: chunks.length, startMs, text: clean });
  };
  const pushPassage = (passage: { lines: string[]; starts: number[] }) =>
    chunks.push({
      kind: 'transcript',
      position: chunks.length,
      startMs: passage.starts[0] ?? 0,
      lineStarts: passage.starts,
      text: passage.lines.join('\n'),
    });
  push('title', note.title, null);
  for (const piece of splitLongText(cleanText(note.summary), options.maxWords)) push('summary', piece, null);
  for (const h of note.highlights) push('highlight', h.text, Number(h.timestamp_ms));
  for (const a of note.actionItems)
    push('action_item', a.assignee ? `${a.text} (${a.assignee})` : a.text, null);
  for (const passage of transcriptPassages(note, options)) pushPassage(passage);
  return chunks;
}

/** Consecutive turns grouped into passages of about `targetWords`; long turns split at sentence ends. */
function transcriptPassages(
  note: NoteContent,
  options: ChunkOptions,
): { lines: string[]; starts: number[] }[] {
  const names = new Map(note.speakers.map((s) => [s.label, s.name]));
  const passages: { lines: string[]; starts: number[] }[] = [];
  let lines: string[] = [];
  let starts: number[] = [];
  let words = 0;
  const flush = () => {
    if (lines.length) passages.push({ lines, starts });
    lines = [];
    starts = [];
    words = 0;
  };
  for (const segment of note.segments) {
    const text = cleanText(segment.text);
    if (!text) continue;
    const speaker = names.get(segment.speaker) || segment.speaker;
    const start = Number(segment.start_ms);
    const end = Math.max(start, Number(segment.end_ms));
    const total = countWords(text);
    let offset = 0;
    for (const piece of splitLongText(text, options.maxWords)) {
      const n = countWords(piece);
      if (words > 0 && words + n > options.maxWords) flush();
      // A piece of a long turn starts where its first word falls, by an even pace through the turn.
      starts.push(Math.round(start + ((end - start) * offset) / Math.max(1, total)));
      lines.push(`${speaker}: ${piece.replace(/\n/g, ' ')}`);
      words += n;
      offset += n;
      if (words >= options.targetWords) flush();
    }
  }
  flush();
  return passages;
}

/** Splits text of more than `maxWords` words into pieces at sentence ends (or at word boundaries if a sentence is longer). */
export function splitLongText(text: string, maxWords: number): string[] {
  if (!text) return [];
  if (countWords(text) <= maxWords) return [text];
  const sentences = text.match(/[^.!?]+(?:[.!?]+["')\]]*\s*|$)/g) ?? [text];
  const pieces: string[] = [];
  let current: string[] = [];
  let count = 0;
  const flush = () => {
    if (current.length) pieces.push(current.join(' ').trim());
    current = [];
    count = 0;
  };
  for (const sentence of sentences) {
    const tokens = sentence.trim().split(/\s+/).filter(Boolean);
    if (!tokens.length) continue;
    if (count + tokens.length > maxWords) flush();
    for (let i = 0; i < tokens.length; i += maxWords) {
      const part = tokens.slice(i, i + maxWords);
      if (count + part.length > maxWords) flush();
      current.push(part.join(' '));
      count += part.length;
    }
  }
  flush();
  return pieces.filter(Boolean);
}
