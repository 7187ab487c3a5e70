import { createHash } from 'node:crypto';
import type { Db, Mode } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../lib/errors.ts';
import type { TranscriptSegment } from './parse-transcript.ts';
import { type PreparedTranscript, prepareTranscript, segmentAt } from './prepared-transcript.ts';

/** Rows per INSERT: far below SQLite's and PostgreSQL's limits on bound parameters. */
const INSERT_BATCH = 500;

/** A transcript as the API takes it: text (`Label: text`, WebVTT, SRT) or timed segments. */
export interface TranscriptInput {
  transcript?: string;
  segments?: TranscriptSegment[];
}

/** A transcript text and its preparation, made before the input was validated (with the request's body). */
export interface PreparedFrom {
  source: string;
  prepared: PreparedTranscript;
}

/**
 * The prepared transcript a transcript input stands for, with the API's checks (size → 413, end before start →
 * 400). A large transcript text is parsed and prepared in a processing thread (`deps.processing`), unless
 * `early` already holds the preparation of this very text.
 */
export async function prepareInput(
  deps: Deps,
  input: TranscriptInput,
  early?: PreparedFrom,
): Promise<PreparedTranscript> {
  const { maxTranscriptBytes } = deps.config;
  if (input.transcript !== undefined) {
    if (Buffer.byteLength(input.transcript, 'utf8') > maxTranscriptBytes) {
      throw new AppError('payload_too_large', `transcript exceeds ${maxTranscriptBytes} bytes.`, {
        param: 'transcript',
      });
    }
    if (early?.source === input.transcript) return early.prepared;
    return deps.processing.prepareTranscript(input.transcript);
  }
  const segments = (input.segments ?? []).map((s) => ({ ...s, text: s.text.trim() }));
  const bad = segments.findIndex((s) => s.end_ms < s.start_ms);
  if (bad >= 0) {
    throw new AppError('parameter_invalid', 'end_ms must not be before start_ms.', {
      param: `segments.${bad}.end_ms`,
    });
  }
  return prepareTranscript(segments);
}

/** The media type of a transcript input: `text/vtt`, `application/x-subrip`, `text/plain` or JSON segments. */
export function transcriptContentType(input: TranscriptInput): string {
  if (input.transcript === undefined) return 'application/json';
  const text = input.transcript.replace(/^\uFEFF/, '');
  if (/^\s*WEBVTT/.test(text)) return 'text/vtt';
  if (/^\s*\d+[^\S\n]*\n\s*\d{1,3}:\d{2}:\d{2}[,.]\d{1,3}\s*-->/.test(text)) return 'application/x-subrip';
  return 'text/plain';
}

/**
 * Size and SHA-256 of the bytes a transcript input was given as (its recording's size and content hash),
 * hashed only when `sha256` is not known already (an import hashed the file); a transcript text prepared in a
 * processing thread has both (`PreparedTranscript.source`).
 */
export function transcriptDigest(input: TranscriptInput, sha256?: string): { bytes: number; sha256: string } {
  const bytes = Buffer.from(input.transcript ?? JSON.stringify(input.segments ?? []), 'utf8');
  return { bytes: bytes.byteLength, sha256: sha256 ?? createHash('sha256').update(bytes).digest('hex') };
}

/**
 * Writes a note's segments and its speakers (one per distinct label, in order of first appearance, named from
 * `names` or else by their label). Call it inside the transaction that creates or transcribes the note. Rows are
 * built from the packed columns one batch at a time, so a long transcript never holds the thread in one piece.
 */
export async function insertTranscript(
  db: Db,
  space: { accountId: string; mode: Mode },
  noteId: string,
  transcript: PreparedTranscript,
  names: ReadonlyMap<string, string> = new Map(),
): Promise<void> {
  const owned = { note_id: noteId, account_id: space.accountId, mode: space.mode };
  for (let i = 0; i < transcript.count; i += INSERT_BATCH) {
    const rows = [];
    for (let j = i; j < Math.min(i + INSERT_BATCH, transcript.count); j++) {
      const seg = segmentAt(transcript, j);
      rows.push({ ...owned, position: j, ...seg });
    }
    await db.insertInto('segments').values(rows).execute();
  }
  if (transcript.labels.length) {
    await db
      .insertInto('speakers')
      .values(
        transcript.labels.map((label, position) => ({
          ...owned,
          position,
          label,
          name: names.get(label) ?? label,
        })),
      )
      .execute();
  }
}
