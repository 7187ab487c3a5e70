import { porterStem } from './porter-stem.ts';

/** A word of a text with where it is (UTF-16 offsets), for snippets and highlighting. */
export interface Token {
  /** Lower-cased, NFKC-folded, diacritics removed. */
  word: string;
  start: number;
  end: number;
}

// Letters and digits of any script; an apostrophe inside a word ends it (as in FTS5's unicode61).
const WORD = /[\p{L}\p{N}]+/gu;
const DIACRITICS = /\p{M}+/gu;

/** Folds a word the way the keyword indexes do: NFKC, lower case, no diacritics. */
export function foldWord(word: string): string {
  // Most words are plain ASCII: nothing to fold but case.
  if (isAscii(word)) return word.toLowerCase();
  return word.normalize('NFKD').replace(DIACRITICS, '').normalize('NFKC').toLowerCase();
}

function isAscii(word: string): boolean {
  for (let i = 0; i < word.length; i++) if (word.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** The words of a text with their offsets. */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(WORD)) {
    out.push({ word: foldWord(m[0]), start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/**
 * Only the folded words of a text. Folding can make punctuation appear (NFKC turns "⑴" into "(1)"), so the
 * folded form is split again: a word is letters and digits only, which also keeps index query syntax out.
 */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.match(WORD) ?? []) {
    const folded = foldWord(raw);
    if (SINGLE_WORD.test(folded)) out.push(folded);
    else for (const part of folded.match(WORD) ?? []) out.push(part);
  }
  return out;
}

const SINGLE_WORD = /^[\p{L}\p{N}]+$/u;

/** The index form of a word: Porter stem for ASCII words (as FTS5 `porter` does), the word otherwise. */
export function stem(word: string): string {
  return porterStem(word);
}

/**
 * English function words: they carry no topic, so a query is matched on its other words. Kept short and
 * generic (no meeting jargon): a query made only of these still searches with them.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can cannot could did do does doing down during each few for from further had has ' +
    'have having he her here hers herself him himself his how i if in into is it its itself just me more ' +
    'most my myself no nor not of off on once only or other ought our ours ourselves out over own same she ' +
    'should so some such than that the their theirs them themselves then there these they this those ' +
    'through to too under until up very was we were what when where which while who whom why will with ' +
    'would you your yours yourself yourselves s t d ll m re ve don didn doesn isn wasn aren weren won ' +
    'wouldn shouldn couldn hasn haven hadn also yeah yes okay ok oh um uh hmm mm'
  ).split(/\s+/),
);

/**
 * Words that say how a question is asked rather than what it is about ("what did Anna say about the
 * budget", "summarize the discussion on pricing"). They are kept in the query but weigh little.
 */
export const QUESTION_WORDS: ReadonlySet<string> = new Set(
  (
    'say said says tell told talk talked talking discuss discussed discussing discussion discussions ' +
    'mention mentioned think thought thinks opinion opinions summarize summarise summary conclusion ' +
    'conclude concluded decide decided decision decisions suggest suggested suggestion suggestions idea ' +
    'ideas view views propose proposed proposal explain explained happen happened meeting meetings ' +
    'group team people regarding related concerning according whether anything something'
  ).split(/\s+/),
);

export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}
