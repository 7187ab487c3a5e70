import { trimEndMatching } from '../../lib/text.ts';
import { cleanText, STOPWORDS } from './sentences.ts';
import { pickSalient, type ScoredSentence } from './summarize.ts';

export const MAX_TITLE_LENGTH = 80;
const MAX_TITLE_WORDS = 10;
const MIN_PHRASE_WORDS = 2;

/** Openers that frame a statement ("I think we need to …") rather than say what it is about. */
const FRAMING_OPENERS = [
  'so|and|but|well|okay|ok|yeah|yes|right|alright|anyway|also|basically|actually|now|then',
  "i think|i guess|i believe|i feel like|i'd say|it seems like|it looks like|the thing is|the point is|i mean",
  "you know|let's|let us|we need to|we have to|we've got to|we should|we must|we'll|we will|we're going to",
  "we are going to|we want to|i want to|i'd like to|we'd like to|i'll|i will|i'm going to|today we|today",
].join('|');
const MARKER_LABELS = 'key point|key takeaway|takeaway|important|action item|note|highlight|bookmark|fyi';
const FRAMING = new RegExp(`^(?:(?:(?:${MARKER_LABELS})\\s*:|(?:${FRAMING_OPENERS})\\b)[,\\s]*)+`, 'i');

/** Where a sentence's key phrase ends: the first clause break after a few words. */
const CLAUSE_BREAK =
  /\s*(?:[,;:()\u2013\u2014]|\s-\s|\s(?:because|since|so that|which|but|although|though|unless|whereas|if|when)\s)/i;

/**
 * A title (≤ 80 characters, never "Untitled") from the key phrase of the most salient statement: its framing
 * removed, cut at the first clause break and at ten words. Falls back to the top keywords, then to who spoke.
 */
export function makeTitle(sentences: readonly ScoredSentence[], speakerNames: readonly string[]): string {
  const statements = (s: ScoredSentence) => s.words.length >= 4 && !s.text.endsWith('?');
  const [best] = pickSalient(sentences, 1, statements);
  const phrase = best ? keyPhrase(best.text) : '';
  if (phrase.split(' ').length >= MIN_PHRASE_WORDS) return finishTitle(phrase);
  const keywords = topKeywords(sentences, 3);
  if (keywords.length) return finishTitle(joinWords(keywords.map(capitalize)));
  const names = [...new Set(speakerNames)].slice(0, 3);
  return names.length ? finishTitle(`Conversation with ${joinWords(names)}`) : 'Meeting notes';
}

/** The part of a sentence that names its subject: without framing, up to the first clause break. */
export function keyPhrase(sentence: string): string {
  let text = cleanText(sentence).replace(FRAMING, '');
  const clause = CLAUSE_BREAK.exec(text);
  if (clause && text.slice(0, clause.index).split(' ').length >= 3) text = text.slice(0, clause.index);
  const words = trimEndMatching(text, /[.!?"]/)
    .split(' ')
    .filter(Boolean)
    .slice(0, MAX_TITLE_WORDS);
  // A phrase ending on "the", "and" or "to" reads as cut off.
  while (
    words.length > 1 &&
    STOPWORDS.has(
      words
        .at(-1)!
        .toLowerCase()
        .replace(/[^\p{L}']/gu, ''),
    )
  )
    words.pop();
  return trimEndMatching(words.join(' '), /[,;:\s-]/);
}

/** The most frequent content words across the transcript, most frequent first. */
function topKeywords(sentences: readonly ScoredSentence[], count: number): string[] {
  const frequency = new Map<string, number>();
  for (const sentence of sentences)
    for (const term of sentence.terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  return [...frequency.entries()]
    .filter(([term]) => /\p{L}/u.test(term))
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, count)
    .map(([term]) => term);
}

function finishTitle(text: string): string {
  const capitalised = capitalize(text.trim());
  if (capitalised.length <= MAX_TITLE_LENGTH) return capitalised;
  const cut = capitalised.slice(0, MAX_TITLE_LENGTH - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), MAX_TITLE_LENGTH / 2)).trimEnd()}…`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "a", "a and b", "a, b and c". */
function joinWords(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
