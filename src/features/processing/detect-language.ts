import { francAll } from 'franc-min';
import { primaryLanguage } from '../../lib/schemas/language.ts';

/** The language a transcript is in, as far as the builtin analyzer needs to know: English or another. */
export type TranscriptLanguage = { english: true } | { english: false; name: string; detected: boolean };

/** franc reads this much of a transcript: enough to tell a language, bounded for a long meeting. */
const SAMPLE_CHARS = 20_000;
/** Shorter text is taken for English: trigram statistics cannot tell a few words apart reliably. */
const MIN_CHARS = 120;
/** English scoring this close to the best language (franc scores the best 1) is kept: mixed or borrowed words. */
const ENGLISH_MARGIN = 0.9;

const NAMES = new Intl.DisplayNames(['en'], { type: 'language' });

/**
 * The note's language: the one its owner gave (BCP 47), else the one franc-min detects in the transcript's words
 * (ISO 639-3, trigram profiles of 82 languages; decision 59). Runs in a processing thread, with the analysis.
 */
export function transcriptLanguage(
  segments: readonly { text: string }[],
  given: string | undefined,
): TranscriptLanguage {
  if (given) {
    return primaryLanguage(given) === 'en'
      ? { english: true }
      : { english: false, name: nameOf(given), detected: false };
  }
  let sample = '';
  for (const s of segments) {
    if (sample.length >= SAMPLE_CHARS) break;
    sample += `${s.text.slice(0, SAMPLE_CHARS - sample.length)}\n`;
  }
  if (sample.trim().length < MIN_CHARS) return { english: true };
  const scores = francAll(sample, { minLength: MIN_CHARS });
  const [best] = scores[0] ?? ['und'];
  if (best === 'und' || best === 'eng') return { english: true };
  const english = scores.find(([code]) => code === 'eng')?.[1] ?? 0;
  if (english >= ENGLISH_MARGIN) return { english: true };
  return { english: false, name: nameOf(best), detected: true };
}

function nameOf(code: string): string {
  try {
    return NAMES.of(code) ?? code;
  } catch {
    return code;
  }
}
