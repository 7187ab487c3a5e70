import { z } from '@hono/zod-openapi';

/**
 * A BCP 47 language tag ("en", "de-CH", "pt-BR", "zh-Hant"), checked and put in canonical form by the runtime's
 * own Intl (`Intl.getCanonicalLocales`), so "EN-gb" is stored as "en-GB" and "english" is refused.
 */
export const LanguageTag = z
  .string({ error: 'must be a BCP 47 language tag such as "en" or "de-CH"' })
  .max(35, 'must be a BCP 47 language tag such as "en" or "de-CH"')
  .transform((tag, ctx) => {
    try {
      const [canonical] = Intl.getCanonicalLocales(tag.trim());
      if (canonical) return canonical;
    } catch {
      // RangeError: not a well-formed tag; reported below.
    }
    ctx.addIssue({ code: 'custom', message: 'must be a BCP 47 language tag such as "en" or "de-CH"' });
    return z.NEVER;
  })
  .openapi({
    type: 'string',
    example: 'de-CH',
    description:
      'The language spoken (BCP 47). Passed to the transcriber as a hint; a language model writes the title, summary and action items in it. The builtin analyzer writes English only (see `analysis_notes`).',
  });

/** The primary language subtag of a canonical tag ("de" for "de-CH"): what ISO 639-1 speech APIs take. */
export function primaryLanguage(tag: string): string {
  return tag.split('-')[0]!.toLowerCase();
}
