import { resolveDueDate } from './resolve-due-date.ts';
import type { Sentence } from './sentences.ts';

export interface ExtractedActionItem {
  text: string;
  assignee?: string;
  /** `YYYY-MM-DD`. */
  due?: string;
}

/** Who the speakers are, so "I" and "Maria," can be turned into display names. */
export interface SpeakerDirectory {
  /** Display name of a speaker label (the label itself when unnamed). */
  nameOf(label: string): string;
  /** The display name a spoken name refers to ("maria" → "Maria Lopez"), if it is a known speaker. */
  resolve(spoken: string): string | undefined;
}

const MAX_ACTION_TEXT = 300;
const MIN_ACTION_WORDS = 2;
/** Commitments are said briefly; a longer clause is a train of thought, not a task. */
const MAX_ACTION_WORDS = 30;

// "action item: …", "to-do: …", "next step is to …"
const EXPLICIT = /\b(?:action items?|to-?dos?|next steps?)\s*(?:(?:is|are)\b\s*:?|:|-)\s*(?:to\s+)?(.+)$/i;
// "I'll …", "I will …", "I'm going to …", "let me …"
const SELF = /\b(?:i'll|i will|i'm going to|i am going to|i'm gonna|let me)\s+(.+)$/i;
// Patterns that capture a name are case-sensitive (a name is capitalised), so they spell out both cases.
const ASK = String.raw`(?:[Cc]an|[Cc]ould|[Ww]ould|[Ww]ill)\s+you`;
const NAME = String.raw`(\p{Lu}[\p{L}'-]+(?:\s\p{Lu}[\p{L}'-]+)?)`;
// "Maria, can you …", "hey Maria, could you please …"
const NAME_THEN_REQUEST = new RegExp(String.raw`(?:^|[,.;]\s*|\b[Hh]ey\s+)${NAME},\s*${ASK}\s+(.+)$`, 'u');
// "Can you, Maria, …"
const REQUEST_COMMA_NAME = new RegExp(String.raw`\b${ASK},\s*${NAME},\s*(.+)$`, 'u');
// "can you …" (the addressee may follow at the end: "…, Maria?")
const REQUEST = /\b(?:can|could|would|will)\s+you\s+(.+)$/i;
// "Maria, please …"
const NAME_THEN_PLEASE = new RegExp(String.raw`(?:^|[,.;]\s*)${NAME},\s*[Pp]lease\s+(.+)$`, 'u');
// "Maria will …", "Maria is going to …", "Maria to …" (only for known speakers: "This will…" is no one)
const THIRD_PERSON = new RegExp(
  String.raw`^(?:[Aa]nd\s+|[Ss]o\s+)?${NAME}\s+(?:will|'ll|is going to|to)\s+(.+)$`,
  'u',
);
// "we need to …", "let's …"
const TEAM =
  /\b(?:we need to|we have to|we've got to|we must|we should|we'll need to|we will need to|we'll|we will|we're going to|let's|let us)\s+(.+)$/i;

/** Verbs after "I'll"/"let's"/"can you" that manage the conversation, not work to be done. */
const NOT_WORK =
  /^(?:be|say|admit|bet|guess|think|wait|start|begin|stop|pass|hear|see|believe|imagine|repeat|explain|talk|speak|move on|go on|go back|continue|keep going|get started|wrap up|recap|skip|jump|look at that|hold on|tell you|show you|give you|hand (?:it )?over|know|have a look at that|take a step back|do that later|try|assume|suppose|be honest|just say)\b/i;
/** First words that show the clause is not an instruction ("I will not…", "we should, uh, maybe…"). */
const NOT_AN_INSTRUCTION =
  /^(?:not|never|no|could|would|should|can|will|might|must|so|that|this|it|there|what|which|and|but|or|if|when|because|all|the|a|an|to|of|in|on|for|with|at|as|you|we|they|he|she|i|do\b\s*(?:[,.]|is\b|now\b))\b/i;
const LEADING_FILLER =
  /^(?:(?:please|just|also|probably|definitely|certainly|quickly|then|actually|really|go ahead and|try and|try to|make sure to|maybe|have to|need to)\s+)+/i;
const SPOKEN_TAG =
  /(?:,\s*(?:okay|ok|right|yeah|please|then|too|as well|if possible|if you can|thanks))+[?.!]*$/i;
const ACKNOWLEDGEMENT =
  /^(?:sure|yes|yeah|yep|ok|okay|will do|on it|absolutely|of course|no problem|definitely|sounds good|got it|i can|i will|i'll)\b/i;
/** Capitalised words that open sentences but are nobody's name. */
const NOT_A_NAME = new Set(
  'so and but also okay ok well yes yeah then now anyway alright right hey hi listen look sorry please actually honestly great thanks everyone guys team folks'.split(
    ' ',
  ),
);

/**
 * Finds commitments and requests: "I'll send the deck" (assigned to the speaker), "Maria, can you book the
 * room by Friday" (assigned to Maria, due that Friday), "we need to decide X", "let's …", "action item: …".
 * At most one item per sentence, in transcript order, without duplicates.
 */
export function extractActionItems(
  sentences: readonly Sentence[],
  speakers: SpeakerDirectory,
  recordedAt: string,
): ExtractedActionItem[] {
  const items: ExtractedActionItem[] = [];
  const seen = new Set<string>();
  for (const sentence of sentences) {
    const found = matchActionItem(sentence, sentences, speakers);
    if (!found) continue;
    const key = found.text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ');
    if (seen.has(key)) continue;
    seen.add(key);
    const due = resolveDueDate(sentence.text, recordedAt);
    items.push({
      text: found.text,
      ...(found.assignee ? { assignee: found.assignee } : {}),
      ...(due ? { due } : {}),
    });
  }
  return items;
}

interface Match {
  text: string;
  assignee?: string;
}

function matchActionItem(
  sentence: Sentence,
  all: readonly Sentence[],
  speakers: SpeakerDirectory,
): Match | undefined {
  const speaker = speakers.nameOf(sentence.speaker);
  const explicit = EXPLICIT.exec(sentence.text);
  if (explicit) {
    // "action item: I'll send the deck" still names its owner; "action item: update the docs" names none.
    const inner = matchClause(explicit[1]!, sentence, all, speakers, speaker);
    return inner ?? toMatch(explicit[1]!, undefined, { allowAnyVerb: true });
  }
  if (sentence.text.endsWith('?') && !/\b(?:can|could|would|will)\s+you\b/i.test(sentence.text))
    return undefined;
  return matchClause(sentence.text, sentence, all, speakers, speaker);
}

function matchClause(
  text: string,
  sentence: Sentence,
  all: readonly Sentence[],
  speakers: SpeakerDirectory,
  speaker: string,
): Match | undefined {
  const self = SELF.exec(text);
  if (self) return toMatch(self[1]!, speaker);

  const named = NAME_THEN_REQUEST.exec(text) ?? REQUEST_COMMA_NAME.exec(text) ?? NAME_THEN_PLEASE.exec(text);
  const addressed = named ? nameIn(named[1]!) : undefined;
  if (named && addressed) {
    return toMatch(named[2]!, speakers.resolve(addressed) ?? addressed, { requester: speaker });
  }
  const request = REQUEST.exec(text);
  if (request) {
    // "can you send the notes, Maria?": the addressee closes the sentence.
    const trailing = /,\s*(\p{Lu}[\p{L}'-]+)\s*[?.!]*$/u.exec(request[1]!);
    const trailingName = trailing ? nameIn(trailing[1]!) : undefined;
    if (trailing && trailingName) {
      const body = request[1]!.slice(0, trailing.index);
      return toMatch(body, speakers.resolve(trailingName) ?? trailingName, { requester: speaker });
    }
    return toMatch(request[1]!, responder(sentence, all, speakers), { requester: speaker });
  }
  const third = THIRD_PERSON.exec(text);
  if (third) {
    const assignee = speakers.resolve(third[1]!);
    if (assignee) return toMatch(third[2]!, assignee);
  }
  const team = TEAM.exec(text);
  if (team) return toMatch(team[1]!, undefined);
  return undefined;
}

/** A request without a name goes to whoever answers it with "sure", "will do", … in the next turn. */
function responder(
  sentence: Sentence,
  all: readonly Sentence[],
  speakers: SpeakerDirectory,
): string | undefined {
  let reply: Sentence | undefined;
  for (let i = sentence.index + 1; i < all.length && !reply; i++) {
    if (all[i]!.segmentIndex > sentence.segmentIndex) reply = all[i];
  }
  if (!reply || reply.speaker === sentence.speaker) return undefined;
  return ACKNOWLEDGEMENT.test(reply.text) ? speakers.nameOf(reply.speaker) : undefined;
}

/** The name in a captured "Okay Maria" or "Maria Lopez": sentence openers dropped, undefined if none is left. */
function nameIn(captured: string): string | undefined {
  const words = captured.split(' ');
  while (words.length && NOT_A_NAME.has(words[0]!.toLowerCase())) words.shift();
  return words.length ? words.join(' ') : undefined;
}

/** Turns the clause after the trigger into an item: "send the deck by Friday" → "Send the deck by Friday". */
function toMatch(
  clause: string,
  assignee: string | undefined,
  options: { requester?: string; allowAnyVerb?: boolean } = {},
): Match | undefined {
  let text = clause
    .replace(SPOKEN_TAG, '')
    .replace(/\s+(?:because|since|so that)\s.*$/i, '')
    .replace(/[.!?;:,\s]+$/, '')
    .replace(LEADING_FILLER, '')
    .trim();
  if (!options.allowAnyVerb && (NOT_WORK.test(text) || NOT_AN_INSTRUCTION.test(text))) return undefined;
  if (options.requester && options.requester !== assignee) {
    // In a request "me" is the person asking; name them so the item reads on its own.
    text = text.replace(/\bme\b/g, options.requester).replace(/\bmy\b/g, `${options.requester}'s`);
  }
  const words = text.split(/\s+/).length;
  if (words < MIN_ACTION_WORDS || words > MAX_ACTION_WORDS) return undefined;
  text = text.charAt(0).toUpperCase() + text.slice(1);
  if (text.length > MAX_ACTION_TEXT) text = `${text.slice(0, MAX_ACTION_TEXT - 1).replace(/\s+\S*$/, '')}…`;
  return { text, ...(assignee ? { assignee } : {}) };
}
