import { AppError } from '../../lib/errors.ts';

/** One speaker turn with its position in the recording. */
export interface TranscriptSegment {
  speaker: string;
  start_ms: number;
  end_ms: number;
  text: string;
}

/** Words per minute used to estimate timings for plain `Label: text` transcripts that carry none. */
const WORDS_PER_MINUTE = 150;
const UNKNOWN_SPEAKER = 'Speaker 1';
const TIMING =
  /^\s*(?:(\d{1,3}):)?(\d{1,2}):(\d{2})[.,](\d{1,3})\s*-->\s*(?:(\d{1,3}):)?(\d{1,2}):(\d{2})[.,](\d{1,3})/;
/** `Label: text`; the label starts at its first non-space, so a line of whitespace is read once, not cubically. */
const LABEL = /^\s*([^:\s][^:\n]{0,59}?)\s*:\s+(\S.*)$/;

/**
 * Parses a transcript given as WebVTT, SRT or `Label: text` lines into speaker segments.
 * Format is detected from content; consecutive lines of one speaker are merged into one turn.
 */
export function parseTranscript(input: string): TranscriptSegment[] {
  const text = input.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const segments =
    /^\s*WEBVTT/.test(text) || TIMING.test(firstTimingCandidate(text)) ? parseCues(text) : parseLines(text);
  if (!segments.length) {
    throw new AppError('parameter_invalid', 'The transcript contains no text.', { param: 'transcript' });
  }
  return segments;
}

function firstTimingCandidate(text: string): string {
  return text.split('\n').find((l) => l.includes('-->')) ?? '';
}

function toMs(h: string | undefined, m: string, s: string, frac: string): number {
  return ((Number(h ?? 0) * 60 + Number(m)) * 60 + Number(s)) * 1000 + Number(frac.padEnd(3, '0'));
}

/** WebVTT and SRT: blocks of an optional id, a timing line, and text lines (`<v Name>` or `Name:` for speakers). */
function parseCues(text: string): TranscriptSegment[] {
  const out: TranscriptSegment[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n');
    const t = lines.findIndex((l) => TIMING.test(l));
    if (t < 0) continue;
    const m = TIMING.exec(lines[t]!)!;
    const start = toMs(m[1], m[2]!, m[3]!, m[4]!);
    const end = Math.max(start, toMs(m[5], m[6]!, m[7]!, m[8]!));
    let body = lines
      .slice(t + 1)
      .join(' ')
      .trim();
    let speaker: string | undefined;
    // The name starts after the whitespace, and a tag ends before the next "<": each character is read once.
    const voice = /^<v(?:\.[^\s>]+)?\s+([^\s>][^>]*)>/.exec(body);
    if (voice) {
      speaker = decodeEntities(voice[1]!.trim());
      body = body.slice(voice[0].length);
    }
    body = decodeEntities(
      body
        .replace(/<[^<>]+>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    );
    if (!speaker) {
      const label = LABEL.exec(body);
      if (label) {
        speaker = label[1]!.trim();
        body = label[2]!.trim();
      }
    }
    if (!body) continue;
    push(out, { speaker: speaker ?? previousSpeaker(out), start_ms: start, end_ms: end, text: body });
  }
  return out;
}

/** WebVTT's text escapes (what an exported VTT writes for `&`, `<`, `>`), `&amp;` last. */
function decodeEntities(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** A label alone on its line ("Alice:"), as some meeting apps export, announces the next lines' speaker. */
const BARE_LABEL = /^\s*([^:\s][^:\n]{0,59}?)\s*:\s*$/;
const NAME_SHAPED = /^(?:[\p{Lu}\d][\p{L}\d.'’-]*)(?:\s+[\p{Lu}\d][\p{L}\d.'’-]*){0,3}$/u;
/** Labels diarization tools write: `SPEAKER_00`, `spk_1`, `Speaker-2`. */
const DIARIZATION_LABEL = /^(?:speaker|spk|spkr)[ _-]?\d{1,3}$/i;

/**
 * Which `X:` prefixes are speaker labels. Prose such as "note to self: call Bo" has that shape too, so a
 * candidate (≤ 4 words, no URL scheme) counts when it is name-shaped (every word capitalised or a number,
 * like "Ana", "Dr. Lee", "Speaker 2") or a diarization label ("SPEAKER_01"), recurs as a label, opens the
 * transcript or stands alone on its line.
 */
function findLabels(lines: string[]): Set<string> {
  const counts = new Map<string, number>();
  const strong = new Set<string>();
  lines.forEach((line, i) => {
    const bare = BARE_LABEL.exec(line);
    const m = bare ?? LABEL.exec(line);
    const label = m?.[1]?.trim();
    if (!label || label.split(/\s+/).length > 4 || /^(https?|ftp|mailto)$/i.test(label)) return;
    counts.set(label, (counts.get(label) ?? 0) + 1);
    if (bare || i === 0 || NAME_SHAPED.test(label) || DIARIZATION_LABEL.test(label)) strong.add(label);
  });
  return new Set([...counts].filter(([label, n]) => n >= 2 || strong.has(label)).map(([label]) => label));
}

/** `Label: text` lines; lines without a label continue the previous turn. Timings are estimated from words. */
function parseLines(text: string): TranscriptSegment[] {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const labels = findLabels(lines);
  const turns: { speaker: string; text: string }[] = [];
  let pending: string | undefined;
  for (const line of lines) {
    const bare = BARE_LABEL.exec(line);
    if (bare && labels.has(bare[1]!.trim())) {
      pending = bare[1]!.trim();
      continue;
    }
    const label = LABEL.exec(line);
    const speaker = label && labels.has(label[1]!.trim()) ? label[1]!.trim() : undefined;
    const body = speaker ? label![2]!.trim() : line;
    const who = speaker ?? pending ?? turns.at(-1)?.speaker ?? UNKNOWN_SPEAKER;
    pending = undefined;
    const last = turns.at(-1);
    if (last && last.speaker === who) last.text += ` ${body}`;
    else turns.push({ speaker: who, text: body });
  }
  let clock = 0;
  return turns.map((turn) => {
    const words = turn.text.split(/\s+/).filter(Boolean).length;
    const duration = Math.max(1000, Math.round((words / WORDS_PER_MINUTE) * 60_000));
    const segment = { speaker: turn.speaker, start_ms: clock, end_ms: clock + duration, text: turn.text };
    clock += duration;
    return segment;
  });
}

function previousSpeaker(out: TranscriptSegment[]): string {
  return out.at(-1)?.speaker ?? UNKNOWN_SPEAKER;
}

/** Consecutive cues of the same speaker become one turn. */
function push(out: TranscriptSegment[], segment: TranscriptSegment) {
  const last = out.at(-1);
  if (last && last.speaker === segment.speaker && segment.start_ms - last.end_ms < 2000) {
    last.text += ` ${segment.text}`;
    last.end_ms = Math.max(last.end_ms, segment.end_ms);
  } else {
    out.push(segment);
  }
}
