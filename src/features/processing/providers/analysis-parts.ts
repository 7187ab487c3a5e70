import type { AnalysisInput } from '../analyze-builtin.ts';
import { estimateTokens } from './count-tokens.ts';

/**
 * A transcript cut into lines for the model: one per segment, `[n] Speaker: text`, where n is the segment's index
 * in the whole transcript (so a highlight named by a part points at its true segment). A segment too long for a
 * small window is cut at spaces into several lines with the same n; nothing is left out.
 */
export interface PromptLine {
  segment: number;
  text: string;
  /** `estimateTokens(text)` plus its newline. */
  tokens: number;
}

/** No line is longer than this, so that a part of a few hundred tokens still holds whole lines. */
const MAX_LINE_TOKENS = 300;

export function promptLines(input: AnalysisInput): PromptLine[] {
  const names = new Map(input.speakers.map((s) => [s.label, s.name]));
  const lines: PromptLine[] = [];
  input.segments.forEach((s, i) => {
    const head = `[${i}] ${names.get(s.speaker) || s.speaker}: `;
    const text = s.text.replace(/\s+/g, ' ').trim();
    for (const piece of splitAtSpaces(text, head.length)) {
      const line = head + piece;
      lines.push({ segment: i, text: line, tokens: estimateTokens(line) + 1 });
    }
  });
  return lines;
}

/** `text` in pieces of at most MAX_LINE_TOKENS each (cut at a space where there is one). */
function splitAtSpaces(text: string, headLength: number): string[] {
  if (estimateTokens(text) + headLength <= MAX_LINE_TOKENS) return [text];
  const pieces: string[] = [];
  let rest = text;
  // Two characters a token at worst (see estimateTokens), less the head's share.
  const chars = Math.max(64, MAX_LINE_TOKENS * 2 - headLength);
  while (rest.length > 0) {
    let piece = rest.slice(0, chars);
    if (piece.length < rest.length) {
      const space = piece.lastIndexOf(' ');
      if (space > chars / 2) piece = piece.slice(0, space);
    }
    // Never split a surrogate pair.
    const last = piece.charCodeAt(piece.length - 1);
    if (piece.length < rest.length && last >= 0xd800 && last <= 0xdbff) piece = piece.slice(0, -1);
    pieces.push(piece.trim());
    rest = rest.slice(piece.length).trimStart();
  }
  return pieces.filter((p) => p.length > 0);
}

/** The end (exclusive) of the longest run of lines from `start` within `budget` tokens; `start` if none fits. */
export function takeLines(
  lines: readonly PromptLine[],
  start: number,
  budget: number,
  ratio: number,
): number {
  let used = 0;
  let end = start;
  while (end < lines.length) {
    const cost = Math.ceil(lines[end]!.tokens * ratio);
    if (used + cost > budget) break;
    used += cost;
    end++;
  }
  return end;
}

/**
 * Where the next part starts after [start, end): a few lines back, so a task said across the boundary is read
 * whole by one of the two parts (their duplicates are merged), but always after `start`.
 */
export function nextStart(
  lines: readonly PromptLine[],
  start: number,
  end: number,
  overlapTokens: number,
): number {
  let back = end;
  let used = 0;
  while (back - 1 > start && used + lines[back - 1]!.tokens <= overlapTokens) {
    back--;
    used += lines[back]!.tokens;
  }
  if (back === end && end - 1 > start) back = end - 1;
  return back;
}

/** "Monday" for the meeting's date, in English (the prompt's language). */
export function meetingDay(createdAt: string): string {
  return new Date(createdAt).toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
}

/** The user message of one part: the date, who speaks in it, where it sits in the meeting, and its lines. */
export function renderPart(
  input: AnalysisInput,
  lines: readonly PromptLine[],
  start: number,
  end: number,
): string {
  const part = lines.slice(start, end);
  const whole = start === 0 && end === lines.length;
  const names = new Map(input.speakers.map((s) => [s.label, s.name]));
  const speakers = new Set<string>();
  for (const line of part) {
    const s = input.segments[line.segment]!;
    speakers.add(names.get(s.speaker) || s.speaker);
  }
  const first = part[0]?.segment ?? 0;
  const last = part.at(-1)?.segment ?? 0;
  return [
    `Meeting date: ${input.createdAt.slice(0, 10)} (${meetingDay(input.createdAt)}).`,
    ...(whole
      ? []
      : [
          `This is one part of a longer meeting: lines ${first} to ${last} of ${input.segments.length}. Write the notes of this part only.`,
        ]),
    `Speakers: ${[...speakers].join(', ')}.`,
    'Transcript:',
    ...part.map((l) => l.text),
  ].join('\n');
}
