import type { ByteRange } from '../storage/audio-storage.ts';

/** What a `Range` header asks of a representation of `size` bytes. */
export type RangeRequest =
  | { kind: 'whole' }
  | { kind: 'partial'; range: ByteRange }
  | { kind: 'unsatisfiable' };

/**
 * RFC 9110 §14: a single `bytes=start-end`, `bytes=start-` or `bytes=-suffix` range, clamped to the size.
 * A header that is absent, malformed, of another unit, or asks for several ranges is ignored (the whole
 * representation is sent, as the RFC allows); a well-formed range that starts past the end is unsatisfiable.
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { kind: 'whole' };
  // Each run of whitespace can be matched one way only: `\s*(\d*)\s*` could split a run of tabs around an empty
  // number in as many ways as it is long, cubic in a 4 KB header (10 s of the event loop at 2,000 tabs a side).
  const m = /^\s*bytes\s*=\s*(?:(\d+)\s*)?-\s*(?:(\d+)\s*)?$/i.exec(header);
  if (!m || (m[1] === undefined && m[2] === undefined)) return { kind: 'whole' };
  if (m[1] === undefined) {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(m[1]);
  const end = m[2] === undefined ? Number.POSITIVE_INFINITY : Number(m[2]);
  // "bytes=9-3" is invalid syntax (ignored); a valid range starting at or past the end cannot be served.
  if (end < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end: Math.min(end, size - 1) } };
}
