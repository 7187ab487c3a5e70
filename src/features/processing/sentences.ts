import { trimEndMatching } from '../../lib/text.ts';
/** A sentence of the transcript with where it was said and who said it. */
export interface Sentence {
  /** Position among all sentences of the transcript. */
  index: number;
  /** Position of the segment (speaker turn) it belongs to. */
  segmentIndex: number;
  /** Speaker label of the segment. */
  speaker: string;
  /** Start of its segment; sentences inside a turn carry no finer timing. */
  startMs: number;
  /** Cleaned text: annotation marks removed, whitespace collapsed, straight apostrophes. */
  text: string;
  /** Lower-cased word tokens, for counting and scoring. */
  words: string[];
}

/**
 * Function words and conversational filler: frequent in every meeting, so they say nothing about this one.
 */
export const STOPWORDS = new Set(
  (
    "a about above after again against all also am an and any are aren't as at be because been before being " +
    "below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down " +
    "during each few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here " +
    "here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its " +
    "itself let's me more most mustn't my myself no nor not of off on once only or other ought our ours " +
    "ourselves out over own same shan't she she'd she'll she's should shouldn't so some such than that " +
    "that's the their theirs them themselves then there there's these they they'd they'll they're they've " +
    "this those through to too under until up very was wasn't we we'd we'll we're we've were weren't what " +
    "what's when when's where where's which while who who's whom why why's will with won't would wouldn't " +
    "you you'd you'll you're you've your yours yourself yourselves " +
    // conversational filler and verbs too common in meetings to carry a topic
    'yeah yes yep no nope okay ok oh um umm uh uhm hmm mm mhm ah right well like just really actually basically ' +
    'gonna wanna gotta kind sort know think thought mean guess maybe probably sure thing things stuff lot lots ' +
    'get got getting go going gone goes went say said says see saw want wanted need needs let make made ' +
    'take come look one two also still even much many anything something everything nothing everyone ' +
    'someone way good great fine bit little quite pretty whatever cool alright hey hi hello thanks thank ' +
    "us now today tomorrow yesterday week day time next last first new can't don't i'll we'll shall may might must"
  ).split(/\s+/),
);

/** Annotation marks of some transcripts (`{vocalsound}`, `{disfmarker}`) and bracketed noises (`[laughter]`). */
const ANNOTATION = /\{[a-z_]+\}|\[(?:laughter|laughs|crosstalk|inaudible|silence|music|noise|applause)\]/gi;
const DISFLUENCY = /(^|[\s,])(?:u+m+|u+h+|e+r+m+|h+m+|mm+)\b[,.]?(?=\s|$)/gi;
/** A filler after a sentence's end, then a lower-case word: ". Um, you will …" (`\s*(?:,\s*)?`: one way to match). */
const FILLER_OPENER =
  /([.!?])\s+(?:[Uu]+[Mm]+|[Uu]+[Hh]+|[Ee]+[Rr]+[Mm]+|[Hh]+[Mm]+|[Mm][Mm]+)\b\s*(?:,\s*)?(\p{Ll})/gu;
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'inc',
  'approx',
]);

/** Straight apostrophes and quotes, no annotation marks or um/uh, single spaces. */
export function cleanText(text: string): string {
  return (
    text
      .replace(/[\u2018\u2019]/g, "'")
      .replace(/[\u201C\u201D]/g, '"')
      .replace(ANNOTATION, ' ')
      // Some transcribers split contractions ("it 's", "we 're"); rejoin them so they tokenize as one word.
      .replace(/(\p{L}) '(s|re|ve|ll|d|m|t)\b/giu, "$1'$2")
      // "… control . Um , you will …": the filler opened a sentence, so the word after it does now.
      .replace(FILLER_OPENER, (_, end: string, first: string) => `${end} ${first.toUpperCase()}`)
      .replace(DISFLUENCY, '$1')
      // Only from the start of a run of spaces: trying every start within a long run is quadratic.
      .replace(/(?<!\s)\s+([,.!?;:])/g, '$1')
      .replace(/,(?:\s*,)+/g, ',')
      .replace(/\b(\w+)(?:\s+\1\b)+/gi, '$1')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** Lower-cased words with inner apostrophes kept (`i'll`, `don't`). */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? [];
}

/** A crude stem so that "budget" and "budgets" count as one word. */
export function stemWord(word: string): string {
  const bare = word.replace(/'s$/, '');
  if (bare.length > 4 && bare.endsWith('s') && !/(ss|us|is)$/.test(bare)) return bare.slice(0, -1);
  return bare;
}

/** Stemmed words that can carry a topic: no stopwords, no one-letter tokens. */
export function contentWords(words: string[]): string[] {
  return words.filter((w) => w.length > 1 && !STOPWORDS.has(w)).map(stemWord);
}

/** Splits one text into sentences at . ! ? followed by a capital or digit, sparing abbreviations. */
export function splitText(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  // A match starts where a run of punctuation does (trying each mark of a long run is quadratic).
  for (const match of text.matchAll(/(?<![.!?])[.!?]+["')\]]*\s+(?=["'([]?[\p{Lu}\p{N}])/gu)) {
    const end = match.index + match[0].length;
    // The word before the mark, looked for in the last few characters only: a longer one is no abbreviation.
    const lastWord =
      /([\p{L}.]+)[.!?]+["')\]]*\s+$/u.exec(text.slice(Math.max(start, match.index - 32), end))?.[1] ?? '';
    // "Dr. Smith" and single initials ("J. Smith") do not end a sentence.
    if (ABBREVIATIONS.has(lastWord.toLowerCase().replace(/\.$/, '')) || /^\p{Lu}$/u.test(lastWord)) continue;
    parts.push(text.slice(start, end).trim());
    start = end;
  }
  parts.push(text.slice(start).trim());
  // A sentence starts at its first word, not at a comma left over from a cut disfluency.
  return parts.map((p) => p.replace(/^[^\p{L}\p{N}"'(]+/u, '')).filter((p) => /[\p{L}\p{N}]/u.test(p));
}

/** Every sentence of the transcript, in order, with its speaker and the start of its turn. */
export function splitSentences(
  segments: readonly { speaker: string; start_ms: number; text: string }[],
): Sentence[] {
  const sentences: Sentence[] = [];
  segments.forEach((segment, segmentIndex) => {
    for (const text of splitText(cleanText(segment.text))) {
      sentences.push({
        index: sentences.length,
        segmentIndex,
        speaker: segment.speaker,
        startMs: segment.start_ms,
        text,
        words: tokenize(text),
      });
    }
  });
  return sentences;
}

/** Lead-in words that make an extracted sentence read like speech rather than a note. */
const LEAD_IN =
  /^(?:(?:so|and|but|well|okay|ok|yeah|yes|right|alright|all right|anyway|also|like|you know|i mean|oh|now)\b[,\s]+)+/i;

/** A sentence fit to stand alone in a summary: no spoken lead-in, capitalised, ending with punctuation. */
export function tidySentence(text: string): string {
  const trimmed = text.replace(LEAD_IN, '').trim() || text.trim();
  const capitalised = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]["')\]]*$/.test(capitalised) ? capitalised : `${trimEndMatching(capitalised, /[,;:\s-]/)}.`;
}

/** Cuts a text to at most `max` characters on a word boundary, marking the cut with an ellipsis. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const atSpace = cut.lastIndexOf(' ');
  return `${trimEndMatching(atSpace > max / 2 ? cut.slice(0, atSpace) : cut, /[,;:\s-]/)}…`;
}
