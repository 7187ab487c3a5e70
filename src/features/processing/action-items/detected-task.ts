import type { Sentence } from '../sentences.ts';
import { partner, resolveAddressee, responder, type SpeakerDirectory, topicBefore } from './addressee.ts';
import { IN_MEETING } from './lexicon.ts';
import { clausesOf } from './rules.ts';
import { type Match, toMatch } from './task-text.ts';

/**
 * The wording of a task the learned detector found where no rule did: the clause after the first promise,
 * request or team plan ("I'm gonna put these initial ideas in the project documents" → "Put these initial ideas
 * in the project documents", the speaker's), with any verb (the detector already judged that it is a task), and
 * the assignee as the rules find it: the speaker for "I", the addressee for "you", nobody for "we". A sentence
 * with none of these cues yields nothing: a task the note cannot word is better left out.
 */

/** "I'm gonna …", "I have to …", "let me …". */
const SELF_CUE =
  /\b(?:i'll|i will|i'm going to|i am going to|i'm gonna|i have to|i need to|i've got to|i should|i can|i could|let me|i'd like to|i want to|i'll try (?:and|to))\s+(.+)$/i;
/** "you will have to …", "can you …", "Baba and David, you will …". */
const YOU_CUE =
  /\b(?:you'll|you will|you're going to|you're gonna|you are going to|you need to|you have to|you've got to|you should|you must|can you|could you|would you|will you|please)\s+(?:(?:have|need) to\s+)?(.+)$/i;
/** "we're gonna start recording them next week", "why don't we plan to …", "let's …". */
const TEAM_CUE =
  /\b(?:we'll|we will|we're going to|we're gonna|we are going to|we need to|we have to|we've got to|we should|we must|we can|we could|let's|why don't we|shall we)\s+(.+)$/i;
/**
 * "Maria will …", "the marketing expert is going to …". The name starts where a word does, not after any letter
 * (`\b` is ASCII-only: inside "x-B-x-B-…" or "bÀbÀ…" it tried every letter, each time to the word's end).
 */
const THIRD_CUE =
  /(?<![\p{L}_'-])([\p{L}_][\p{L}_'-]*(?: [\p{L}_'-]+)?)\s+(?:will|'ll|is going to|is gonna|has to|needs to|should)\s+(.+)$/iu;
/** A name said to someone ("…, Baba, on …", "Baba and David you …"): more than one is no single assignee. */
const NAMES_AROUND = /\b\p{Lu}[\p{L}'-]+/gu;

/** The one speaker a "you" sentence names, if exactly one. */
function namedIn(text: string, speakers: SpeakerDirectory, speaker: string): string | undefined | null {
  const named = new Set<string>();
  for (const m of text.matchAll(NAMES_AROUND)) {
    const who = resolveAddressee(m[0], speakers);
    if (who && who !== speaker) named.add(who);
  }
  return named.size === 1 ? [...named][0] : named.size > 1 ? null : undefined;
}

export function detectedTask(
  sentence: Sentence,
  all: readonly Sentence[],
  speakers: SpeakerDirectory,
): Match | undefined {
  const speaker = speakers.nameOf(sentence.speaker);
  for (const clause of clausesOf(sentence.text)) {
    if (IN_MEETING.test(clause)) continue;
    const self = SELF_CUE.exec(clause);
    if (self) return toMatch(self[1]!, speaker, { allowAnyVerb: true });
    const you = YOU_CUE.exec(clause);
    if (you) {
      const named = namedIn(sentence.text, speakers, speaker);
      const who =
        named === null
          ? undefined
          : (named ??
            topicBefore(
              sentence.text.slice(0, sentence.text.indexOf(clause) + you.index),
              sentence,
              all,
              speakers,
            ) ??
            responder(sentence, all, speakers) ??
            partner(sentence, all, speakers));
      return toMatch(you[1]!, who, { requester: speaker, allowAnyVerb: true });
    }
    const team = TEAM_CUE.exec(clause);
    if (team) return toMatch(team[1]!, undefined, { allowAnyVerb: true });
    const third = THIRD_CUE.exec(clause);
    if (third) {
      const who = resolveAddressee(third[1]!, speakers);
      if (who) return toMatch(third[2]!, who, { allowAnyVerb: true });
    }
  }
  return undefined;
}
