/** ISO 8601 UTC with milliseconds and `Z`; fixed width, so text order equals time order. */
export function toIso(date: Date | number): string {
  return new Date(date).toISOString();
}

export function nowIso(): string {
  return new Date().toISOString();
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date `YYYY-MM-DD` (rejects 2026-02-30). */
export function isCalendarDate(value: string): boolean {
  const m = DATE_RE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0–99 to 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

const DATETIME_RE = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses an ISO 8601 date-time with an explicit offset; null when malformed or not a real instant. */
export function parseDateTime(value: string): Date | null {
  const m = DATETIME_RE.exec(value);
  if (!m || !isCalendarDate(m[1]!)) return null;
  const [h, mi, s] = [Number(m[2]), Number(m[3]), Number(m[4] ?? 0)];
  if (h > 23 || mi > 59 || s > 59) return null;
  const offset = m[6]!;
  if (offset !== 'Z') {
    const [oh, om] = offset.slice(1).split(':').map(Number);
    if (oh! > 23 || om! > 59) return null;
  }
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * A `from`/`to` bound: a bare date means that whole UTC day (from = its start, to = the next day's start,
 * exclusive); a date-time is taken as given (to is then inclusive, expressed as exclusive + 1 ms).
 */
export function parseRangeBound(value: string, edge: 'from' | 'to'): string | null {
  let ms: number;
  if (isCalendarDate(value)) {
    const start = Date.parse(`${value}T00:00:00Z`);
    ms = edge === 'from' ? start : start + 86_400_000;
  } else {
    const date = parseDateTime(value);
    if (!date) return null;
    ms = edge === 'from' ? date.getTime() : date.getTime() + 1;
  }
  // Past year 9999 toISOString() adds a sign ("+010000-…") and no longer sorts as text against stored
  // timestamps; an exclusive upper bound of the last instant's end (ISO 8601 allows 24:00) keeps every row.
  if (ms > MAX_INSTANT) return END_OF_TIME;
  return toIso(ms);
}

const MAX_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
const END_OF_TIME = '9999-12-31T24:00:00.000Z';

/** `h:mm:ss` (or `m:ss` under an hour) from milliseconds, for times a reader scans (exports, the dashboard). */
export function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = h ? String(m).padStart(2, '0') : String(m);
  return `${h ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}
