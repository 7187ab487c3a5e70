import type { Sentence } from '../sentences.ts';
import {
  ACKNOWLEDGEMENT,
  BACKCHANNEL,
  madeOf,
  NOT_A_NAME,
  PHRASE,
  SHORT_REPLY_UNIT,
  STRONG_ACKNOWLEDGEMENT,
} from './lexicon.ts';

/**
 * Addressee resolution: who a task is for. A name or role said in the sentence ("Maria, …", "the I_D_", "the
 * PM"), a person named just before ("For the User Interface Designer, which is Hamed, … you are going to …"),
 * whoever answers a request with "sure", or the one person the speaker is talking with. Every answer is a
 * speaker's display name, never a raw label when a name is known.
 */

/** Who the speakers are, so "I" and "Maria," can be turned into display names. */
export interface SpeakerDirectory {
  /** Display name of a speaker label (the label itself when unnamed). */
  nameOf(label: string): string;
  /** The display name a spoken name refers to ("maria" → "Maria Lopez"), if it is a known speaker. */
  resolve(spoken: string): string | undefined;
  /** Every display name, for looser matches ("the Industrial Designer", "the PM"). */
  readonly names?: readonly string[];
}
/**
 * A known speaker that a phrase refers to: by name ("Maria"), by the words of a role label ("the Industrial
 * Designer", even stammered: "User Interf Interface Designer"), or by its initials ("the PM", "I_D_").
 */
export function resolveAddressee(phrase: string, speakers: SpeakerDirectory): string | undefined {
  const spoken = phrase.trim().replace(TITLE_WORDS, '').replace(/[,.]$/, '').trim();
  if (!spoken) return undefined;
  const exact = speakers.resolve(spoken);
  if (exact) return exact;
  const names = speakers.names ?? [];
  const letters = spoken.replace(/[_.\s]/g, '');
  const candidates = new Set<string>();
  if (/^[A-Z]{2,5}$/.test(letters) && /^(?:[A-Z][_.]?\s?){2,5}$/.test(spoken)) {
    for (const name of names) {
      const initials = name
        .split(/\s+/)
        .map((w) => w.charAt(0).toUpperCase())
        .join('');
      if (initials.length >= 2 && letters.startsWith(initials) && letters.length <= initials.length + 1)
        candidates.add(name);
    }
  } else {
    const words = spoken.toLowerCase().split(/\s+/);
    const fits = (part: string) =>
      words.some(
        (w) =>
          w === part || (w.length >= 5 && part.startsWith(w)) || (part.length >= 5 && w.startsWith(part)),
      );
    for (const name of names) {
      const parts = name.toLowerCase().split(/\s+/);
      // A one-word name must be said as a word of its own; a longer one by all of its words.
      if (parts.every(fits) && (parts.length > 1 || words.length <= 2)) candidates.add(name);
    }
  }
  return candidates.size === 1 ? [...candidates][0] : undefined;
}

/** The name in a captured "Okay Maria" or "Maria Lopez": sentence openers dropped, undefined if none is left. */
export function nameIn(captured: string): string | undefined {
  const words = captured.trim().split(/\s+/);
  while (words.length && NOT_A_NAME.has(words[0]!.toLowerCase())) words.shift();
  return words.length ? words.join(' ') : undefined;
}
/** A single capitalised word that can be a person's name ("Courtney"), not an opener or an institution. */
export function personalName(phrase: string): string | undefined {
  const name = nameIn(phrase);
  return name && /^\p{Lu}[\p{Ll}'-]+$/u.test(name) && !/ing$/.test(name) ? name : undefined;
}
/** A phrase that names a person: a known speaker, or a capitalised first name. */
export function isPerson(phrase: string, speakers: SpeakerDirectory): boolean {
  return !!(resolveAddressee(phrase, speakers) ?? personalName(phrase));
}
/** A request without a name goes to whoever answers it with "sure", "will do", … in the next turn. */
export function responder(
  sentence: Sentence,
  all: readonly Sentence[],
  speakers: SpeakerDirectory,
  accepts: RegExp = ACKNOWLEDGEMENT,
): string | undefined {
  // The first real answer within the next few turns: backchannels and the asker's own afterthoughts are skipped.
  let turns = 0;
  let lastSegment = sentence.segmentIndex;
  for (let i = sentence.index + 1; i < all.length; i++) {
    const reply = all[i]!;
    if (reply.segmentIndex === sentence.segmentIndex) continue;
    if (reply.segmentIndex !== lastSegment) {
      lastSegment = reply.segmentIndex;
      if (++turns > 4) return undefined;
    }
    if (reply.speaker === sentence.speaker || BACKCHANNEL.test(reply.text)) continue;
    if (!accepts.test(reply.text)) return undefined;
    // "are you gonna save the data?" — "Yeah." — "Yeah, absolutely.": two people took it on, so no one owner.
    const next = all.find((s) => s.index > i && s.segmentIndex !== reply.segmentIndex);
    if (
      next &&
      next.speaker !== reply.speaker &&
      next.speaker !== sentence.speaker &&
      STRONG_ACKNOWLEDGEMENT.test(next.text)
    )
      return undefined;
    return speakers.nameOf(reply.speaker);
  }
  return undefined;
}
/**
 * The one person the speaker is talking with: when everyone else who speaks just before and just after the
 * request (even only "mm-hmm") is the same person, an unnamed "you need to …" is said to them.
 */
export function partner(
  sentence: Sentence,
  all: readonly Sentence[],
  speakers: SpeakerDirectory,
): string | undefined {
  const others = new Set<string>();
  let turns = 0;
  const look = (from: number, step: number, limit: number) => {
    let seen = 0;
    let segment = sentence.segmentIndex;
    for (let i = from; i >= 0 && i < all.length && seen < limit; i += step) {
      const s = all[i]!;
      if (s.segmentIndex === segment) continue;
      segment = s.segmentIndex;
      if (s.speaker === sentence.speaker) continue;
      others.add(s.speaker);
      seen++;
      turns++;
    }
  };
  look(sentence.index - 1, -1, 2);
  look(sentence.index + 1, 1, 2);
  return others.size === 1 && turns >= 2 ? speakers.nameOf([...others][0]!) : undefined;
}
/** A person named as the topic of what follows: "For the User Interface Designer, which is Hamed, …", "Maria, …". */
const MENTION = new RegExp(
  String.raw`(?:^|[,.;?!]\s*|\b(?:[Ff]or|[Aa]nd|[Ss]o|[Oo]kay|[Nn]ow|[Tt]hen|[Rr]ight)\s+)(?:[Tt]he\s+)?${PHRASE}(?=\s*(?:[,.;?]|$|which\b|who\b|that's\b))`,
  'gu',
);
/** A role said in lower case as the topic: "as the industrial designer, you're …", "for our marketing expert, …". */
const ROLE_MENTION = /\b(?:as|for)\s+(?:the|our)\s+((?:[\w'-]+\s){0,2}[\w'-]+)(?=\s*(?:,|$))/gi;
/** The last person named as a topic in a text, other than the speaker. */
function lastMention(text: string, speakers: SpeakerDirectory, speaker: string): string | undefined {
  let found: { who: string; at: number } | undefined;
  for (const pattern of [MENTION, ROLE_MENTION])
    for (const m of text.matchAll(pattern)) {
      const who = resolveAddressee(m[1]!, speakers);
      if (who && who !== speaker && (!found || m.index >= found.at)) found = { who, at: m.index };
    }
  return found?.who;
}
/**
 * Whom an unnamed "you're going to …" is said to: a person named earlier in the sentence ("And for Marketing,
 * which is Bob, you are going to …") or in the speaker's previous sentence or two ("The I_D_, which is who?
 * Okay, you're going to …"), past other people's "mm-hmm".
 */
export function topicBefore(
  before: string,
  sentence: Sentence,
  all: readonly Sentence[],
  speakers: SpeakerDirectory,
): string | undefined {
  const speaker = speakers.nameOf(sentence.speaker);
  const inSentence = lastMention(before, speakers, speaker);
  if (inSentence) return inSentence;
  let own = 0;
  for (let i = sentence.index - 1; i >= 0 && own < 2; i--) {
    const earlier = all[i]!;
    if (earlier.speaker !== sentence.speaker) {
      if (madeOf(SHORT_REPLY_UNIT, earlier.text)) continue;
      return undefined;
    }
    own++;
    const who = lastMention(earlier.text, speakers, speaker);
    if (who) return who;
  }
  return undefined;
}
const TITLE_WORDS = /^(?:the|our|my|your|miss|mister|mr|mrs|ms|dr)\s+/i;
