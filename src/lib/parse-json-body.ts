import { AppError } from './errors.ts';
import { wellFormedDeep } from './text.ts';

/** A request body read as JSON: the object, and whether a lone surrogate in it was replaced (see below). */
export interface ParsedJsonBody {
  value: Record<string, unknown>;
  /** True when the text escapes a surrogate (`\ud800`): the text the validator reads is then re-serialised. */
  repaired: boolean;
}

/**
 * The API's reading of a JSON request body: empty text is `{}`; anything but an object is refused (400
 * `parameter_invalid`), so is text that is not JSON (400 `body_invalid_json`); every lone surrogate becomes
 * U+FFFD (one rule on both databases); NUL is refused anywhere (PostgreSQL cannot store it). Pure, so a large
 * body can be read in a processing thread and a small one in place.
 */
export function parseJsonBody(text: string): ParsedJsonBody {
  if (text.trim() === '') return { value: {}, repaired: false };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError('body_invalid_json', 'The request body is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new AppError('parameter_invalid', 'The request body must be a JSON object.');
  }
  wellFormedDeep(parsed);
  const nul = findNul(parsed);
  if (nul !== null) {
    throw new AppError(
      'parameter_invalid',
      `Invalid '${nul}': text must not contain NUL (U+0000) characters.`,
      {
        param: nul,
      },
    );
  }
  return { value: parsed as Record<string, unknown>, repaired: /\\u[dD][89a-fA-F]/.test(text) };
}

/**
 * The path (`segments.3.text`) of the first string or key holding U+0000, or null. Iterative: bodies may nest
 * thousands deep.
 */
function findNul(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return path;
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        const childPath = path ? `${path}.${k}` : k;
        if (k.includes('\u0000')) return childPath;
        stack.push([child, childPath]);
      }
    }
  }
  return null;
}
