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
  /** Every display name, for looser matches ("the Industrial Designer", "the PM"). */
  readonly names?: readonly string[];
}

const MAX_ACTION_TEXT = 300;
const MIN_ACTION_WORDS = 2;
/** Commitments are said briefly; a longer clause is a train of thought, not a task. */
const MAX_ACTION_WORDS = 30;

/**
 * Verbs of work done after a meeting: what people commit to, ask for and assign. A clause whose verb is not one
 * of these ("we should have a rubber case", "I'll put two", "let's take lunch") is a preference, a rating or
 * meeting talk, not a task. Multi-word entries match as a phrase.
 */
const TASK_VERBS = new Set(
  (
    'send email e-mail mail forward circulate share distribute upload post write type draft prepare compile ' +
    'summarise summarize document update revise edit fix finish complete finalise finalize submit deliver book ' +
    'schedule arrange organise organize plan coordinate contact phone ask tell inform remind invite notify ' +
    'follow check verify confirm find research investigate explore study examine analyse analyze review assess ' +
    'test measure calculate estimate compare build create design develop implement code program gather collect ' +
    'bring buy order purchase decide choose pick select save record transcribe label annotate run rerun train ' +
    'install print sign approve reply respond provide renew cancel hire interview clean fill set sort put ' +
    'think work look try talk speak reach come do make have take'
  ).split(' '),
);
/** Verbs above that need a particle or an object to be a task: "work on …", "look into …", "make a …". */
const NEEDS_COMPLEMENT: Record<string, RegExp> = {
  set: /^set up\b/,
  sort: /^sort out\b/,
  clean: /^clean up\b/,
  fill: /^fill (?:in|out)\b/,
  follow: /^follow up\b/,
  think: /^think (?:about|through|of)\b/,
  work: /^work (?:on|out|together on)\b/,
  look: /^(?:look (?:into|at|up|for)|look more into)\b/,
  try: /^try (?:out)\b/,
  talk: /^talk to\b/,
  speak: /^speak (?:to|with)\b/,
  reach: /^reach out\b/,
  come: /^come up with\b/,
  put: /^put (?!(?:it|them|that|this|one|two|three|four|five|six|seven)\s*[,.]?$)[\w' -]+ (?:in|on|into|onto) (?:the|our|a)\b/,
  do: /^do (?:the|a|an|some) (?!(?:thing|stuff|same|other|rest)\b)\w/,
  make: /^make (?:a|an|the|some|sure|up)\b/,
  type: /^type up\b/,
  write: /^write (?!(?:it |this |that |some stuff |stuff |things? )?down\b)/,
  finish: /^finish (?!up\b|here\b|now\b|off\b|this meeting\b)/,
  ask: /^ask (?!you\b|everyone\b|everybody\b|people\b)(?:the |our |a |an )?[\w-]+(?: [\w-]+)? (?:to|about|for|whether|if)\b/,
  have: /^have a (?:quick |closer |good |proper )?look\b/,
  take: /^take a (?:quick |closer |good |proper )?look\b/,
};
/** Imperatives that are tasks on their own ("check out the website", "send me the slides"); no meeting verbs. */
const IMPERATIVE_VERBS =
  /^(?:check(?: out)?|send|email|e-mail|mail|forward|book|schedule|contact|prepare|draft|write up|type up|update|fix|review|fill (?:in|out)|sign|submit|reply to|remind|print|order|buy|renew|cancel|confirm)\b/i;
/** Talk about the meeting itself, happening now: not work for later. */
const IN_MEETING =
  /\b(?:right now|at the moment|in this meeting|during this meeting|this slide|next slide|first present|(?:we|i)(?:'ll| will)? (?:then|first|now)\b)/i;
/** First words that show the clause is not an instruction ("I will not…", "we should, uh, maybe…"). */
const NOT_AN_INSTRUCTION =
  /^(?:not|never|no|could|would|should|can|will|might|must|so|that|this|it|there|what|which|and|but|or|if|when|because|all|the|a|an|to|of|in|on|for|with|at|as|you|we|they|he|she|i|always|still|just say)\b/i;
const LEADING_FILLER =
  /^(?:(?:for sure|please|just|also|probably|definitely|certainly|quickly|then|actually|really|go ahead and|go and|try and|try to|make sure to|maybe|perhaps|have to|need to|has to|needs to|got to|gotta|sort of|kind of|uh|um|all|first|also|still|now|be|again|eventually|soon|then)\s+)+/i;
const SPOKEN_TAG =
  /(?:,?\s*(?:okay|ok|right|yeah|please|then|too|as well|if possible|if you can|thanks|maybe|perhaps|alright|eh|yes|I think|I guess|as usual|so)\b)+[?.!]*$/i;
const ACKNOWLEDGEMENT =
  /^(?:sure|yes|yeah|yep|ok|okay|will do|on it|absolutely|of course|no problem|definitely|sounds good|got it|i can|i will|i'll|alright|all right|'kay|kay|fine)\b/i;
/** Listening noises: a third person's "mm-hmm" during a request is not an answer to it. */
const BACKCHANNEL = /^(?:mm+-?hmm+|uh-huh|hmm+|mm+|um+|uh+|oh|ah|right)\W*$/i;
/** Capitalised words that open sentences but are nobody's name. */
const NOT_A_NAME = new Set(
  (
    'so and but also okay ok well yes yeah then now anyway alright right hey hi listen look sorry please actually ' +
    'honestly great thanks everyone guys team folks i we you they he she it this that these those there here ' +
    'what which who the a an my our your their his her maybe perhaps just mr mrs ms chair minister government ' +
    'canada wales members everybody anybody someone somebody nobody something when if where while because as ' +
    'once since after before unless whether how why can could would will shall should may might must do does ' +
    'did are is was were have has had let'
  ).split(' '),
);

// Patterns that capture a name are case-sensitive (a name is capitalised), so they spell out both cases.
const NAME = String.raw`(\p{Lu}[\p{L}'-]+(?:\s\p{Lu}[\p{L}'-]+)?)`;
/** A role or name phrase: "Industrial Designer", "User Interf Interface Designer", "I_D_", "the PM". */
const PHRASE = String.raw`((?:\p{Lu}[\p{L}_'-]*\s?){1,4})`;
const YOU_WILL = String.raw`(?:you(?:'re| are)\s+(?:going to|gonna)|you(?:'ll| will)(?:\s+(?:need|have) to)?|you\s+(?:need|have|ought) to|you\s+(?:should|must|can|could)|you)`;
const ASK = String.raw`(?:[Cc]an|[Cc]ould|[Ww]ould|[Ww]ill)\s+you`;

// "action item: …", "to-do: …", "next step is to …"
const EXPLICIT = /\b(?:action items?|to-?dos?|next steps?)\s*(?:(?:is|are)\b\s*:?|:|-)\s*(?:to\s+)?(.+)$/i;
// "I'll …", "I will …", "I'm going to …", "I need to …"
const SELF =
  /\b(?:i'll|i will|i'm going to|i am going to|i'm gonna|i need to|i have to|i've got to|i can|i shall)\s+(.+)$/i;
// "I'll ask the Industrial Designer to …", "I will ask Maria to …"
const ASK_TO = new RegExp(
  String.raw`\b(?:[Ii](?:'ll| will| would like to| want to|'d like to| am going to|'m going to)?|[Ww]e(?:'ll| will)?)\s+(?:just\s+)?ask\s+(?:the\s+|our\s+)?${PHRASE}\s*to\s+(.+)$`,
  'u',
);
// "Maria, can you …", "hey Maria, could you please …", "Manuel you're going to …", "Ryan you work on …"
const NAME_THEN_REQUEST = new RegExp(
  String.raw`(?:^|[,.;]\s*|\b(?:[Hh]ey|[Aa]nd|[Ss]o|[Oo]kay|[Nn]ow)\s+)${NAME},?\s*(?:${ASK}|${YOU_WILL}|[Pp]lease)\s+(.+)$`,
  'u',
);
// "Can you, Maria, …"
const REQUEST_COMMA_NAME = new RegExp(String.raw`\b${ASK},\s*${NAME},\s*(.+)$`, 'u');
// "can you …", "are you going to …" (the addressee may follow at the end: "…, Maria?")
const REQUEST = /\b(?:(?:can|could|would|will)\s+you|are\s+you\s+(?:going to|gonna))\s+(.+)$/i;
// "you're going to …", "you will …", "you need to …": an assignment to whoever is addressed.
const ASSIGNMENT =
  /(?:^|[,;]\s*|\b(?:and|so|okay|um|uh)\s+)(?:you(?:'re| are)\s+(?:going to|gonna)|you(?:'ll| will)(?:\s+(?:need|have) to)?(?!\s+be\b)|you\s+(?:need|have) to|you\s+(?:should|can|could))\s+(.+)$/i;
// "please …" (an instruction to whoever listens)
const PLEASE = /(?:^|[,;]\s*|\b(?:and|so)\s+)please\s+(.+)$/i;
// "Maria will …", "the Industrial Designer is going to …", "…, that's Courtney, is going to …"
const THIRD_PERSON = new RegExp(
  String.raw`(?:^|[,.;]\s*|\b(?:[Aa]nd|[Ss]o|[Tt]hat's|[Tt]hen)\s+)(?:[Tt]he\s+|[Oo]ur\s+)?${PHRASE},?\s*(?:will|'ll|is going to|is gonna|needs to|has to|should|to)\s+(.+)$`,
  'u',
);
// "we need to …", "let's …", "we'll have to …"
const TEAM =
  /\b(?:we need to|we have to|we've got to|we got to|we must|we should|we'll need to|we will need to|we might need to|we'll have to|we will have to|we're gonna have to|we are going to have to|we're gonna need to|we're going to need to|we are going to need to|we'd better|let's|let us)\s+(?=(.+)$)/gi;
// "we'll …", "we're going to …": a plan only when it says it is for after the meeting.
const TEAM_WILL = /\b(?:we'll|we will|we're going to|we are going to|we're gonna)\s+(?=(.+)$)/gi;
// "someone should call the vendor", "whoever … they should email Hynek": a task for someone unnamed.
const ANYONE =
  /\b(?:someone|somebody|anyone|anybody|everyone|everybody|they)\s+(?:should|needs? to|has to|have to|must)\s+(?=(.+)$)/gi;
// "So check out the corporate website": an imperative at the start of a clause.
const IMPERATIVE = /^(?:(?:so|and|okay|ok|then|also|just|now|please|um|uh)[,\s]+)*(.+)$/i;
const LATER =
  /\b(?:next (?:meeting|time|week|month|session)|for the next|before the next|by the next|after (?:the|this) meeting|later|tomorrow|by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|the end)|in the meantime|meantime|afterwards|offline|off-line)\b/i;
// "what we need to decide is whether …"
const DECIDE = /\bwhat we(?:'re| re)? (?:really |still )?(?:need|have) to decide is\s+(.+)$/i;
// "you'll be sent a transcript …", "the slides will be sent to you"
const PASSIVE_SEND = /\byou(?:'ll| will) be sent\s+(.+)$/i;

interface Match {
  text: string;
  assignee?: string;
}

/**
 * Finds commitments, requests and assignments: "I'll send the deck" (the speaker), "Maria, can you book the
 * room by Friday" (Maria, due that Friday), "I'll ask the designer to draft it" (the designer), "you're going to
 * work on the components" (whoever accepts), "we need to decide X", "action item: …". Only clauses about work
 * after the meeting count: a task verb, no talk about the meeting itself. In transcript order, no duplicates.
 */
export function extractActionItems(
  sentences: readonly Sentence[],
  speakers: SpeakerDirectory,
  recordedAt: string,
): ExtractedActionItem[] {
  const items: ExtractedActionItem[] = [];
  const seen = new Set<string>();
  for (const sentence of sentences) {
    for (const found of matchSentence(sentence, sentences, speakers)) {
      const key = found.text
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, ' ')
        .trim();
      if (seen.has(key)) continue;
      seen.add(key);
      const due = resolveDueDate(sentence.text, recordedAt);
      items.push({
        text: found.text,
        ...(found.assignee ? { assignee: found.assignee } : {}),
        ...(due ? { due } : {}),
      });
    }
  }
  return items;
}

/** Clauses of a sentence that can each hold a task: "…, and I'll send …", "…; you have to …". */
function clausesOf(text: string): string[] {
  return text
    .split(
      /;\s+|,?\s+and then\s+(?=(?:i|we|you)\b)|,?\s+and\s+(?=(?:i|we)(?:'ll| will)\b)|,\s+(?:and\s+)?(?=you (?:have|need) to\b)/i,
    )
    .map((c) => c.trim())
    .filter(Boolean);
}

function matchSentence(sentence: Sentence, all: readonly Sentence[], speakers: SpeakerDirectory): Match[] {
  const speaker = speakers.nameOf(sentence.speaker);
  const explicit = EXPLICIT.exec(sentence.text);
  if (explicit) {
    // "action item: I'll send the deck" still names its owner; "action item: update the docs" names none.
    const inner = matchClause(explicit[1]!, sentence, all, speakers, speaker, {
      last: true,
      question: false,
    });
    return [inner ?? toMatch(explicit[1]!, undefined, { allowAnyVerb: true })].filter((m): m is Match => !!m);
  }
  const question = sentence.text.endsWith('?');
  const clauses = clausesOf(sentence.text);
  const out: Match[] = [];
  clauses.forEach((clause, i) => {
    const found = matchClause(clause, sentence, all, speakers, speaker, {
      last: i === clauses.length - 1,
      question,
    });
    if (found) out.push(found);
  });
  return out;
}

function matchClause(
  text: string,
  sentence: Sentence,
  all: readonly Sentence[],
  speakers: SpeakerDirectory,
  speaker: string,
  where: { last: boolean; question: boolean },
): Match | undefined {
  if (IN_MEETING.test(text)) return undefined;

  const passive = PASSIVE_SEND.exec(text);
  if (passive) return toMatch(`send ${passive[1]}`, undefined);

  const asked = ASK_TO.exec(text);
  if (asked && !/^you\b/i.test(asked[1]!.trim())) {
    const who = resolveAddressee(asked[1]!, speakers);
    if (who) return toMatch(asked[2]!, who, { requester: speaker });
  }

  const named = NAME_THEN_REQUEST.exec(text) ?? REQUEST_COMMA_NAME.exec(text);
  const addressed = named ? nameIn(named[1]!) : undefined;
  if (named && addressed) {
    return toMatch(
      named[2]!,
      speakers.resolve(addressed) ?? resolveAddressee(addressed, speakers) ?? addressed,
      {
        requester: speaker,
      },
    );
  }

  const request = REQUEST.exec(text) ?? ASSIGNMENT.exec(text) ?? PLEASE.exec(text);
  if (request) {
    // "can you send the notes, Maria?": the addressee closes the sentence.
    const trailing = /,\s*(\p{Lu}[\p{L}'-]+)\s*[?.!]*$/u.exec(request[1]!);
    const trailingName = trailing ? nameIn(trailing[1]!) : undefined;
    if (trailing && trailingName) {
      const body = request[1]!.slice(0, trailing.index);
      return toMatch(body, speakers.resolve(trailingName) ?? trailingName, { requester: speaker });
    }
    // Several assignments in one turn go to several people: the reply only answers the last one.
    const who =
      vocativeBefore(sentence, all, speakers) ??
      (where.last ? responder(sentence, all, speakers) : undefined);
    return toMatch(request[1]!, who, { requester: speaker });
  }

  const self = SELF.exec(text);
  if (self) return toMatch(self[1]!, speaker);
  // A question that is not a request asks about the task, it does not set it.
  if (where.question) return undefined;

  const third = THIRD_PERSON.exec(text);
  if (third) {
    const who = resolveAddressee(third[1]!, speakers) ?? personalName(third[1]!);
    if (who) {
      const found = toMatch(third[2]!, who);
      if (found) return found;
    }
  }

  const decide = DECIDE.exec(text);
  if (decide) return toMatch(`decide ${decide[1]}`, undefined);
  // "let's go with the round one, let's explore a two-piece": the first trigger that introduces a task.
  for (const team of text.matchAll(TEAM)) {
    const found = toMatch(team[1]!, undefined);
    if (found) return found;
  }
  for (const anyone of text.matchAll(ANYONE)) {
    const found = toMatch(anyone[1]!, undefined);
    if (found) return found;
  }
  if (LATER.test(sentence.text)) {
    for (const plan of text.matchAll(TEAM_WILL)) {
      const found = toMatch(plan[1]!, undefined);
      if (found) return found;
    }
  }
  const imperative = IMPERATIVE.exec(text);
  if (imperative && IMPERATIVE_VERBS.test(imperative[1]!)) return toMatch(imperative[1]!, undefined);
  return undefined;
}

/** A request without a name goes to whoever answers it with "sure", "will do", … in the next turn. */
function responder(
  sentence: Sentence,
  all: readonly Sentence[],
  speakers: SpeakerDirectory,
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
    return ACKNOWLEDGEMENT.test(reply.text) ? speakers.nameOf(reply.speaker) : undefined;
  }
  return undefined;
}

const VOCATIVE = new RegExp(
  String.raw`(?:^|[.?!]\s+)(?:(?:okay|ok|so|and|now|um|uh|right)[,\s]+)*(?:[Tt]he\s+)?${PHRASE},`,
  'u',
);

/** "The I_D_, which is you? You're going to …": a speaker named at the start of the turn's previous sentence. */
function vocativeBefore(
  sentence: Sentence,
  all: readonly Sentence[],
  speakers: SpeakerDirectory,
): string | undefined {
  for (let i = sentence.index - 1; i >= Math.max(0, sentence.index - 2); i--) {
    const before = all[i]!;
    if (before.segmentIndex !== sentence.segmentIndex) return undefined;
    const named = VOCATIVE.exec(before.text);
    const who = named ? resolveAddressee(named[1]!, speakers) : undefined;
    if (who) return who;
  }
  return undefined;
}

/** The name in a captured "Okay Maria" or "Maria Lopez": sentence openers dropped, undefined if none is left. */
function nameIn(captured: string): string | undefined {
  const words = captured.trim().split(/\s+/);
  while (words.length && NOT_A_NAME.has(words[0]!.toLowerCase())) words.shift();
  return words.length ? words.join(' ') : undefined;
}

/** A single capitalised word that can be a person's name ("Courtney"), not an opener or an institution. */
function personalName(phrase: string): string | undefined {
  const name = nameIn(phrase);
  return name && /^\p{Lu}[\p{Ll}'-]+$/u.test(name) ? name : undefined;
}

const TITLE_WORDS = /^(?:the|our|my|your|miss|mister|mr|mrs|ms|dr)\s+/i;

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

/** The first word(s) of a clause as a task verb, or undefined when the clause does not start with work. */
function isTask(text: string): boolean {
  const lower = text.toLowerCase();
  const verb = lower.split(/\s+/)[0] ?? '';
  if (!TASK_VERBS.has(verb)) return false;
  const complement = NEEDS_COMPLEMENT[verb];
  return complement ? complement.test(lower) : true;
}

/** Turns the clause after the trigger into an item: "send the deck by Friday" → "Send the deck by Friday". */
function toMatch(
  clause: string,
  assignee: string | undefined,
  options: { requester?: string; allowAnyVerb?: boolean } = {},
): Match | undefined {
  let text = clause
    .replace(/\s+(?:because|since|so that|'cause|cause)\s.*$/i, '')
    .replace(/,\s+(?:if|but)\s.*$|,?\s+(?:unless|whenever)\s.*$/i, '')
    .replace(SPOKEN_TAG, '')
    .replace(/[.!?;:,\s]+$/, '')
    .replace(/^[\s,;:-]+/, '')
    .replace(LEADING_FILLER, '')
    .replace(/^[\s,;:-]+/, '')
    .replace(LEADING_FILLER, '')
    .replace(/\b(\w+(?:\s\w+)?) \1\b/gi, '$1')
    .trim();
  if (!options.allowAnyVerb && (NOT_AN_INSTRUCTION.test(text) || !isTask(text))) return undefined;
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
