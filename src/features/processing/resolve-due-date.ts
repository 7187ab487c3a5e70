import * as chrono from 'chrono-node';

const DAY_MS = 86_400_000;

/** Words right before a date that make it a deadline ("by Friday", "before the 15th", "due on Monday"). */
const DEADLINE_CUE =
  /\b(?:by|before|until|till|due|on|for|no later than|latest|deadline is|deadline)\s*(?:the\s+)?$/i;
/** Date phrases that are deadlines on their own ("tomorrow", "next Tuesday", "in two weeks"); not "today", which
 * usually means this meeting ("today we need to …"). */
const SELF_CUED =
  /^(?:tomorrow|next\b|this\b|in\s|within\s|end of|the end of|(?:on|by|before|until|till)\s)/i;
/** "by the 15th": a day of the month, the next one on or after the reference day. */
const DAY_OF_MONTH = /\b(?:by|before|until|till|due|on|for)\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+of\b)/i;
/** "by the end of the week", "end of month", "EOD", "EOW". */
const PERIOD_END =
  /\b(?:(?:by\s+)?(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?(day|week|month)|(eod|eow|eom))\b/i;

const CALENDAR_WORD =
  /\d|(?:mon|tues|wednes|thurs|fri|satur|sun)day|\b(?:mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec)[a-z]*\b|tomorrow|week|month|fortnight|year/i;

function toDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/**
 * The due date a sentence commits to, as `YYYY-MM-DD`, resolved relative to when the note was recorded
 * (UTC). Only deadlines count: a date with a cue ("by Friday", "before the 15th", "tomorrow", "next
 * Tuesday", "end of the week"), never a date in the past. Undefined when there is none.
 */
export function resolveDueDate(sentence: string, recordedAt: string): string | undefined {
  const reference = Date.parse(recordedAt);
  if (Number.isNaN(reference)) return undefined;
  const today = startOfUtcDay(reference);
  return (
    resolvePeriodEnd(sentence, today) ??
    resolveDayOfMonth(sentence, today) ??
    resolveWithChrono(sentence, reference, today)
  );
}

function resolvePeriodEnd(sentence: string, today: number): string | undefined {
  const match = PERIOD_END.exec(sentence);
  if (!match) return undefined;
  const period = (match[1] ?? match[2] ?? '').toLowerCase();
  const date = new Date(today);
  if (period === 'day' || period === 'eod') return toDate(today);
  if (period === 'week' || period === 'eow') {
    // The working week ends on Friday; said on a weekend it means the coming one.
    const daysToFriday = (5 - date.getUTCDay() + 7) % 7;
    return toDate(today + daysToFriday * DAY_MS);
  }
  return toDate(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0));
}

function resolveDayOfMonth(sentence: string, today: number): string | undefined {
  const match = DAY_OF_MONTH.exec(sentence);
  if (!match) return undefined;
  const day = Number(match[1]);
  if (day < 1 || day > 31) return undefined;
  const now = new Date(today);
  // This month if that day is still ahead, else the next month that has such a day (no 31 June).
  for (let ahead = 0; ahead < 12; ahead++) {
    const year = now.getUTCFullYear();
    const month = now.getUTCMonth() + ahead;
    const candidate = Date.UTC(year, month, day);
    if (new Date(candidate).getUTCDate() === day && candidate >= today) return toDate(candidate);
  }
  return undefined;
}

function resolveWithChrono(sentence: string, reference: number, today: number): string | undefined {
  const results = chrono.casual.parse(
    sentence,
    { instant: new Date(reference), timezone: 'UTC' },
    { forwardDate: true },
  );
  for (const result of results) {
    const { start } = result;
    // A month alone ("for the March release") names no day to be due on.
    if (!start.isCertain('day') && !start.isCertain('weekday')) continue;
    if (/^(?:last|past|previous)\b/i.test(result.text) || /\bago\b/i.test(result.text)) continue;
    // "folder for the minutes" is no date: a day is said with a number or a calendar word.
    if (!CALENDAR_WORD.test(result.text)) continue;
    const cued = SELF_CUED.test(result.text) || DEADLINE_CUE.test(sentence.slice(0, result.index));
    if (!cued) continue;
    let date = start.date().getTime();
    if (date < today) continue;
    // "by Monday" said on a Monday is next Monday: a deadline the same day would be named "today".
    if (start.isCertain('weekday') && !start.isCertain('day') && startOfUtcDay(date) === today)
      date += 7 * DAY_MS;
    return toDate(date);
  }
  return undefined;
}
