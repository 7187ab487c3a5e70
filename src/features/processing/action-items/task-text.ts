import { removeAtEnd, trimEndMatching } from '../../../lib/text.ts';
import {
  LEADING_FILLER,
  NEEDS_COMPLEMENT,
  NOT_AN_INSTRUCTION,
  SPOKEN_TAG,
  TASK_VERBS,
  WORK_NOUN,
} from './lexicon.ts';

/**
 * Task normalisation: from the words after a trigger ("… I'll, um, just send the deck by Friday, okay?") to the
 * item's text ("Send the deck by Friday"), or nothing when what is left is no task (no task verb, speech broken
 * off, a pronoun for all content, meeting talk).
 */

/** A task found in a clause, before due dates and duplicates are settled. */
export interface Match {
  text: string;
  assignee?: string;
  /** Said to "you" with nothing to tell who that is: the one person left in a round of assignments, if any. */
  toYou?: boolean;
  /** Said to an unnamed "you", the assignee guessed from who answered or who was talking with the speaker. */
  guessed?: boolean;
  /** The rule that found it (`rules.ts`): a feature of the detector, and a clue when debugging. */
  rule?: string;
}
const MAX_ACTION_TEXT = 300;
const MIN_ACTION_WORDS = 2;
/** Commitments are said briefly; a longer clause is a train of thought, not a task. */
const MAX_ACTION_WORDS = 30;

/** Turns the clause after the trigger into an item: "send the deck by Friday" → "Send the deck by Friday". */
export function toMatch(
  clause: string,
  assignee: string | undefined,
  options: { requester?: string; allowAnyVerb?: boolean } = {},
): Match | undefined {
  let text = removeAtEnd(
    clause
      // "think s through this": a word cut off after its first letter.
      .replace(/(?:^|\s)(?![aAiIoO]\s)[b-zB-Z](?=\s)|\s*@(?:\s*@)*/g, '')
      .replace(/\s+(?:because|since|so that|'cause|cause)\s.*$/i, '')
      .replace(/,\s+(?:if|but)\s.*$|,?\s+(?:unless|whenever)\s.*$/i, '')
      .replace(/[.!?]\s.*$/, ''),
    SPOKEN_TAG,
  );
  // "send it to you and Fey and then", "get the slogan on there, and": the speaker trails off after a
  // conjunction; the task before it is whole (speech broken off before an object still fails below).
  text = removeAtEnd(trimEndMatching(text, /[.!?;:,\s]/), TRAILING_CONJUNCTION);
  // "also, for sure, email Hynek": fillers, also between commas.
  for (let before = ''; before !== text; ) {
    before = text;
    text = text.replace(/^[\s,;:-]+/, '').replace(LEADING_FILLER, '');
  }
  text = text
    .replace(/\b(\w+(?:\s\w+)?) \1\b/gi, '$1')
    // "will be doing the working design" → "do the working design"
    .replace(/^(\w+ing)\b/i, (word) => baseVerb(word.toLowerCase()) ?? word)
    .trim();
  if (!options.allowAnyVerb && (NOT_AN_INSTRUCTION.test(text) || !isTask(text))) return undefined;
  // "evaluate one of them", "do it": a task that says what only by pointing back is no note of its own.
  if (PRONOUN_ONLY.test(text.split(/,?\s+and\s+/)[0]!) || VERB_ONLY.test(text)) return undefined;
  if (options.requester && options.requester !== assignee) {
    // In a request "me" is the person asking; name them so the item reads on its own.
    text = text.replace(/\bme\b/g, options.requester).replace(/\bmy\b/g, `${options.requester}'s`);
  }
  // "make a decision here", "finish now": the meeting itself.
  if (/\b(?:here|now)$/i.test(text)) return undefined;
  // "put the notes on the", "finish it by": speech broken off before the task was said.
  if (
    /\s(?:the|a|an|by|to|of|into|for|with|and|or|about|from|our|your|my|their|is|are|which|who|than|if|whether|so|it's|there's|we're|they're|you're)$/i.test(
      text,
    ) ||
    // "make sure that" is cut off; "get back to you on that" is not.
    /\b(?:sure|think|say|said|know|mean|believe|guess|such|so|hope|feel)\sthat$/i.test(text)
  )
    return undefined;
  const words = text.split(/\s+/).length;
  if (words < MIN_ACTION_WORDS || words > MAX_ACTION_WORDS) return undefined;
  text = text.charAt(0).toUpperCase() + text.slice(1);
  if (text.length > MAX_ACTION_TEXT) text = `${text.slice(0, MAX_ACTION_TEXT - 1).replace(/\s+\S*$/, '')}…`;
  return { text, ...(assignee ? { assignee } : {}) };
}
/** The first word(s) of a clause as a task verb, or undefined when the clause does not start with work. */
export function isTask(text: string): boolean {
  const lower = text.toLowerCase();
  const verb = (lower.split(/\s+/)[0] ?? '').replace(/[,;:]$/, '');
  if (!TASK_VERBS.has(verb)) return false;
  const complement = NEEDS_COMPLEMENT[verb];
  return complement ? complement.test(lower) : true;
}
/** A conjunction the speaker trailed off after, at the end of a clause ("…, and", "… and then", "… or"). */
const TRAILING_CONJUNCTION = /,?\s+(?:and|or|but)(?:\s+(?:then|so|um|uh))?[.,\s]*$/i;
const PRONOUN_ONLY =
  /^(?:(?:have|take) a (?:quick |closer |good )?look (?:at|into)|[\w-]+(?:\s(?:on|up|out|into|at|about|with|for|to|over|back|through))?)\s(?:it|them|that|this|those|these|one|one of them|both|either|that one|this one|both of them|either of them)(?:\s(?:on|up|out|over|back|through|together))?(?:\s(?:in the meantime|in the meanwhile|now|later|again|first|too|as well|here|there|quickly|then|anyway))?$/i;
/** Nothing after the verb: "work on", "look into". */
const VERB_ONLY = /^(?:\S+(?:\s(?:on|up|out|into|at|about|with|for|to|over|back|through))?|make sure)$/i;
/** The task verb of a gerund ("doing" → "do", "putting" → "put", "preparing" → "prepare"), if it is one. */
function baseVerb(gerund: string): string | undefined {
  const stem = gerund.slice(0, -3);
  for (const verb of [stem, `${stem}e`, stem.replace(/(.)\1$/, '$1')]) if (TASK_VERBS.has(verb)) return verb;
  return undefined;
}
/** A noun phrase for a piece of work: "the technical functions design", "the figures for the report" (not "the
 * budget numbers look off", which says something about the work). */
export function endsWithWork(phrase: string): boolean {
  const words = phrase.trim().split(/\s+/);
  return words.length <= 8 && WORK_NOUN.test(words[words.length - 1]!);
}
/** The verb of a task, with its particle: "Work on the design" → "work on". */
export function verbOf(task: string): string {
  return (/^(\S+(?:\s(?:on|up|out|into|at|about|with|for))?)\s/i.exec(task)?.[1] ?? '').toLowerCase();
}
/**
 * The sentence without what it quotes: reported speech ("he's like \"I can bring it over\"") is nobody's
 * commitment here. A quote may open in one sentence of a turn and close in a later one.
 */
export function withoutQuotes(text: string, open: boolean): { text: string; open: boolean } {
  if (!text.includes('"')) return { text: open ? '' : text, open };
  const parts = text.split('"');
  // Even parts are outside the quotes when none is open at the start, odd parts when one is.
  const kept = parts.filter((_, i) => (i % 2 === 0) !== open);
  return {
    text: kept.join(' ').replace(/\s+/g, ' ').trim(),
    open: (parts.length - 1) % 2 === 1 ? !open : open,
  };
}
