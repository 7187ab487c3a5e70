/** A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const ANY_SURROGATE = /[\uD800-\uDFFF]/;
/** Fields never repaired: webhook signing secrets (refused by their schema when not well-formed). */
const KEEP_AS_SENT: ReadonlySet<string> = new Set(['secret']);

/**
 * The string with every lone surrogate replaced by U+FFFD (what String#toWellFormed does). JSON allows
 * `"\ud800"`, but such a string has no UTF-8 form: SQLite and PostgreSQL would each store something of their
 * own. Input is made well-formed once, where it is read, so both dialects store and answer the same text.
 */
export function wellFormed(text: string): string {
  return ANY_SURROGATE.test(text) ? text.replace(LONE_SURROGATE, '\uFFFD') : text;
}

/**
 * A parsed JSON value with every string (keys too) made well-formed; iterative, as bodies may nest deeply.
 * Values under a key in `keep` stay as sent: a secret is key material, and its schema refuses one that is
 * not well-formed rather than have it silently changed (docs/decisions.md).
 */
export function wellFormedDeep<T>(value: T, keep: ReadonlySet<string> = KEEP_AS_SENT): T {
  if (typeof value === 'string') return wellFormed(value) as T;
  if (value === null || typeof value !== 'object') return value;
  const stack: unknown[] = [value];
  while (stack.length) {
    const node = stack.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v = node[i];
        if (typeof v === 'string') node[i] = wellFormed(v);
        else if (v !== null && typeof v === 'object') stack.push(v);
      }
      continue;
    }
    for (const key of Object.keys(node)) {
      const v = node[key];
      const fixedKey = wellFormed(key);
      if (fixedKey !== key) {
        delete node[key];
        node[fixedKey] = v;
      }
      if (keep.has(fixedKey)) continue;
      if (typeof v === 'string') node[fixedKey] = wellFormed(v);
      else if (v !== null && typeof v === 'object') stack.push(v);
    }
  }
  return value;
}

/**
 * The first `max` code points of `text`. `slice` counts UTF-16 units and can cut a surrogate pair in two (an
 * emoji at the cut became U+FFFD once stored); this never does. Every cut of user text goes through here.
 */
export function sliceCodePoints(text: string, max: number): string {
  // Fast path: no more UTF-16 units than allowed code points.
  if (text.length <= max) return text;
  let units = 0;
  let points = 0;
  while (units < text.length && points < max) {
    const code = text.charCodeAt(units);
    const pair =
      code >= 0xd800 &&
      code <= 0xdbff &&
      units + 1 < text.length &&
      isLowSurrogate(text.charCodeAt(units + 1));
    units += pair ? 2 : 1;
    points++;
  }
  return text.slice(0, units);
}

/** Number of code points (a surrogate pair counts once). */
export function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1)))
      i++;
    n++;
  }
  return n;
}

/** `text` if it has at most `max` code points, else its first `max - 1` (trailing space trimmed) and "…". */
export function truncate(text: string, max: number): string {
  if (text.length <= max || codePointLength(text) <= max) return text;
  return `${sliceCodePoints(text, max - 1).trimEnd()}…`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * `text` without the characters at its end that `trailing` (a regular expression for one character, without the
 * g or y flag, such as `/[,;:\s]/`) matches. Linear: `text.replace(/[,;:\s]+$/, '')` tries the run from every
 * position of a long run inside the text that does not reach its end, which is quadratic (80 KB of "; " before
 * a last word held the action-item rules for 6 s). Every trailing trim of user text goes through here.
 */
export function trimEndMatching(text: string, trailing: RegExp): string {
  let end = text.length;
  while (end > 0 && trailing.test(text[end - 1]!)) end--;
  return end === text.length ? text : text.slice(0, end);
}

/**
 * `text` with the match of an end-anchored `pattern` (a short tail such as a spoken tag or a trailing
 * conjunction) removed, looked for in the last `tail` characters only: a search from every position of a
 * megabyte text is quadratic, one of its tail is bounded. The tail starts between words, so a word cut in two
 * ("noteb|ook") never looks like a whole word ("ok") to the pattern.
 */
export function removeAtEnd(text: string, pattern: RegExp, tail = 120): string {
  if (text.length <= tail) return text.replace(pattern, '');
  const between = text.slice(text.length - tail).search(/[^\p{L}\p{N}_]/u);
  if (between < 0) return text;
  const cut = text.length - tail + between;
  return text.slice(0, cut) + text.slice(cut).replace(pattern, '');
}
