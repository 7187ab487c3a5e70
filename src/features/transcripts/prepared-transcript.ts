import { createHash } from 'node:crypto';
import { parseTranscript, type TranscriptSegment } from './parse-transcript.ts';
import { provisionalTitle } from './provisional-title.ts';
import { renderTranscript } from './render-transcript.ts';

/**
 * A transcript ready to store: its segments packed into columns (typed arrays and one string of all texts),
 * with what the note row needs computed from them. Packed, because a thread hands it back to the request's
 * thread: a structured clone of 400,000 segment objects costs that thread about as much as building them
 * (hundreds of milliseconds), while typed arrays move without a copy and one string is copied at memory speed.
 * Rows are built from the columns 500 at a time, between statements (`insertTranscript`).
 */
export interface PreparedTranscript {
  count: number;
  /** Distinct speaker labels, in order of first appearance. */
  labels: string[];
  /** Per segment: its label's index in `labels`. */
  speaker: Uint32Array;
  startMs: Float64Array;
  endMs: Float64Array;
  /** Every segment's text, one after another; segment i is `texts.slice(textEnds[i - 1] ?? 0, textEnds[i])`. */
  texts: string;
  textEnds: Uint32Array;
  /** The note's transcript text (`renderTranscript`). */
  rendered: string;
  /** The provisional title (`provisionalTitle`). */
  title: string;
  /** The latest end of any segment (0 without segments). */
  durationMs: number;
  /**
   * `rendered` as a JSON string literal in UTF-8, when a processing thread prepared the transcript of a body whose
   * answer echoes it (`echoed`): the answer splices these bytes in (`noteDetailJson`) instead of serialising and
   * encoding megabytes on the request's thread.
   */
  renderedJson?: Uint8Array;
  /**
   * The transcript text's size in UTF-8 and its SHA-256 (hex), when a processing thread prepared it from a body
   * that makes a recording (`recorded`): what the recording keeps, without encoding and hashing megabytes again.
   */
  source?: { bytes: number; sha256: string };
}

/** Packs segments (see PreparedTranscript). Linear in the transcript's size. */
export function prepareTranscript(segments: readonly TranscriptSegment[]): PreparedTranscript {
  const n = segments.length;
  const labels: string[] = [];
  const labelIndex = new Map<string, number>();
  const speaker = new Uint32Array(n);
  const startMs = new Float64Array(n);
  const endMs = new Float64Array(n);
  const textEnds = new Uint32Array(n);
  const texts: string[] = [];
  let offset = 0;
  let durationMs = 0;
  for (let i = 0; i < n; i++) {
    const seg = segments[i]!;
    let index = labelIndex.get(seg.speaker);
    if (index === undefined) {
      index = labels.push(seg.speaker) - 1;
      labelIndex.set(seg.speaker, index);
    }
    speaker[i] = index;
    startMs[i] = seg.start_ms;
    endMs[i] = seg.end_ms;
    if (seg.end_ms > durationMs) durationMs = seg.end_ms;
    texts.push(seg.text);
    offset += seg.text.length;
    textEnds[i] = offset;
  }
  return {
    count: n,
    labels,
    speaker,
    startMs,
    endMs,
    texts: texts.join(''),
    textEnds,
    rendered: renderTranscript(segments),
    title: provisionalTitle(segments),
    durationMs,
  };
}

/**
 * What a request does with the transcript of its body, so the thread that reads the body prepares what that
 * needs: `echoed`, the answer shows the note (`renderedJson`); `recorded`, a recording keeps the text's size
 * and hash (`source`).
 */
export type TranscriptUse = 'echoed' | 'recorded';

/** A transcript's text (`Label: text`, WebVTT, SRT) parsed and packed: what every thread that takes text runs. */
export function prepareTranscriptText(text: string, use?: TranscriptUse): PreparedTranscript {
  const prepared = prepareTranscript(parseTranscript(text));
  if (use === 'echoed') {
    // TextEncoder's array owns its buffer (Buffer.from may share a pool), so it can be moved to another thread.
    prepared.renderedJson = new TextEncoder().encode(JSON.stringify(prepared.rendered));
  } else if (use === 'recorded') {
    const bytes = Buffer.from(text, 'utf8');
    prepared.source = { bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  return prepared;
}

/** Segment i of a prepared transcript. */
export function segmentAt(p: PreparedTranscript, i: number): TranscriptSegment {
  return {
    speaker: p.labels[p.speaker[i]!]!,
    start_ms: p.startMs[i]!,
    end_ms: p.endMs[i]!,
    text: p.texts.slice(i === 0 ? 0 : p.textEnds[i - 1], p.textEnds[i]),
  };
}

/** The typed arrays of a prepared transcript, to move to another thread instead of copying them. */
export function transferablesOf(p: PreparedTranscript): ArrayBuffer[] {
  const buffers = [p.speaker.buffer, p.startMs.buffer, p.endMs.buffer, p.textEnds.buffer];
  if (p.renderedJson) buffers.push(p.renderedJson.buffer);
  return buffers as ArrayBuffer[];
}
