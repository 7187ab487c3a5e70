/** Markup that is already safe: made only by `html` (or `raw` for trusted constants). */
export class Safe {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Html = Safe;
type Part = Safe | string | number | boolean | null | undefined | readonly Part[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function render(part: Part): string {
  if (part instanceof Safe) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  if (part === null || part === undefined || part === false || part === true) return '';
  return escapeHtml(String(part));
}

/**
 * The one way pages are written: every interpolated value is escaped unless it is itself `html` (so user text can
 * never become markup); arrays are joined; null, undefined and booleans render nothing.
 */
export function html(strings: TemplateStringsArray, ...values: Part[]): Safe {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Safe(out);
}

/** Trusted markup (constants only, never user text). */
export function raw(markup: string): Safe {
  return new Safe(markup);
}
