import { trimEndMatching } from '../../../lib/text.ts';
import type { Sentence } from '../sentences.ts';
import {
  isPerson,
  nameIn,
  partner,
  personalName,
  resolveAddressee,
  responder,
  type SpeakerDirectory,
  topicBefore,
} from './addressee.ts';
import {
  ASK,
  FOLLOW_UP,
  IMPERATIVE_VERBS,
  IN_MEETING,
  LATER,
  NAME,
  NAME_START,
  PHRASE,
  RELATIVE_BEFORE,
  VOLUNTEERED,
  YOU_WILL,
} from './lexicon.ts';
import { endsWithWork, type Match, toMatch, verbOf } from './task-text.ts';

/**
 * The ordered rule table of the action-item extractor. A sentence is split into clauses (`clausesOf`); each
 * clause is tried against the rules in order, and the first rule that answers decides the clause: its items, or
 * none ("this is meeting talk", "a question that is not a request"). A rule's `build` returns `undefined` to let
 * the next rule try. To add a rule, put a row where it belongs in the order (more specific forms first) and add a
 * test in test/processing/action-item-rules.test.ts. Every pattern must stay linear-time on any input: no
 * quantified group may contain another quantifier over the same characters (test/processing/
 * extract-action-items.test.ts checks the patterns against adversarial input).
 */

/** What a rule sees: the clause, its sentence among all, the speakers, and where the clause sits. */
export interface ClauseContext {
  text: string;
  sentence: Sentence;
  all: readonly Sentence[];
  speakers: SpeakerDirectory;
  /** Display name of the sentence's speaker. */
  speaker: string;
  /** The last clause of its sentence (a reply answers it), and asked (the sentence ends with "?"). */
  where: { last: boolean; question: boolean };
}

export interface Rule {
  name: string;
  /**
   * What the rule looks for. Several patterns: the first that matches. A global pattern: every match in turn,
   * until `build` answers (or, with `collect`, all of them together).
   */
  pattern: RegExp | readonly RegExp[];
  collect?: boolean;
  /** The clause's items for a match; `undefined` lets the next rule try, an array (even empty) ends the clause. */
  build(match: RegExpExecArray, context: ClauseContext): Match[] | undefined;
}

// "action item: …", "to-do: …", "next step is to …", "Maria's action items are …".
const EXPLICIT = new RegExp(
  String.raw`(?:${NAME_START}(\p{Lu}[\p{L}'-]+)'s\s+)?\b(?:[Aa]ction [Ii]tems?|[Tt]o-?[Dd]os?|[Nn]ext [Ss]teps?|ACTION ITEMS?|TODOS?)(?:\s+for\s+${NAME})?\s*(?:(?:is|are)\b\s*:?|:|-)\s*(?:to\s+)?(.+)$`,
  'u',
);
// "Maria's job is to …", "the Industrial Designer's task will be to …".
const OWNED_JOB = new RegExp(
  String.raw`${NAME_START}${PHRASE}'s\s+(?:job|task|homework|assignment)\s+(?:is|will be)\s+to\s+(.+)$`,
  'u',
);
// "I'll …", "I will …", "I'm going to …", "I need to …"
const SELF =
  /\b(?:i'll|i will|i'm going to|i am going to|i'm gonna|i need to|i have to|i've got to|i can|i shall|i (?:still|also|just|really|probably|definitely|actually|certainly) (?:need to|have to|must|will|should|want to|plan to)|i should|i'd better|i ought to|i plan to|i'm planning to|i intend to|i(?:'d| would) be happy to|i'm happy to|i am happy to|i'm supposed to|i am supposed to|i volunteer to|i promise to|i'll make sure to|i(?:'d| would) (?:need|have) to),?\s+(?=(.+)$)/gi;
// "I'll ask the Industrial Designer to …", "I will ask Maria to …"
const ASK_TO = new RegExp(
  String.raw`\b(?:[Ii](?:'ll| will| would like to| want to|'d like to| am going to|'m going to)?|[Ww]e(?:'ll| will)?)\s+(?:just\s+)?(?:ask|want|need|expect|would like|'d like)\s+(?:the\s+|our\s+)?${PHRASE}\s*to\s+(.+)$`,
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
const REQUEST =
  /\b(?:(?:can|could|would|will)\s+you|would\s+you\s+mind|if\s+you\s+could|are\s+you\s+(?:going to|gonna))\s+(.+)$/i;
// "you're going to …", "you will …", "you need to …": an assignment to whoever is addressed.
const ASSIGNMENT =
  /(?:^|[,;]\s*|\b(?:and|so|okay|um|uh)\s+)(?:(?:basically|really|actually|also|just|then|now|maybe|probably|definitely)\s+)*(?:you(?:'re| are)\s+(?:going to|gonna|supposed to)|you(?:'ll| will)(?:\s+(?:need|have) to)?(?!\s+be\b)|you\s+(?:need|have) to|you\s+(?:should|can|could))\s+(.+)$/i;
/** "Norman and I would think about …": the speaker and a partner offer to take work on; no one owner. */
const JOINT_OFFER =
  /(?:^|[,;]\s*|\b(?:that|so|and|then|well|maybe)\s+)(\p{Lu}[\p{L}'-]*)\s+and\s+I\s+(?:would|could|should|might)\s+(.+)$/u;
/** "you each have things to do: the look and feel design, …": work handed to everyone, listed after it. */
const EACH_HAS =
  /\b(?:you each|each of you|everybody|everyone)\s+(?:has|have|gets?|has got|have got)\s+(?:(?:some|a few|your own)\s+)?(?:things|work|tasks?|jobs?|homework)(?:\s+to do)?\s*[,:]\s*(.+)$/i;
/**
 * "So you do the looking around at other remote controls", "and you look at competition": work handed out in the
 * present tense, at the start of a clause; the task verb decides (`toMatch`), so "you know", "you see" are none.
 */
const YOU_DO =
  /^(?:(?:so|and|then|now|okay|ok|um|uh|also|right)[,\s]+)*you\s+(?!(?:guys|all|two|both)\b)(.+)$/i;
// "make sure you update the ticket": an instruction to whoever is addressed.
const MAKE_SURE_YOU = /\bmake sure (?:that )?you\s+(?!(?:are|were|have|had|know|don't)\b)(.+)$/i;
// "let me check with legal and get back to you": "let me" is usually the meeting, but not with a promise to reply.
const LET_ME_GET_BACK = /\blet me\s+(.+\bget back to\b.*)$/i;
// "please …" (an instruction to whoever listens)
const PLEASE = /(?:^|[,;]\s*|\b(?:and|so)\s+)please\s+(.+)$/i;
// "Maria will …", "the Industrial Designer is going to …", "…, that's Courtney, is going to …"
const THIRD_PERSON = new RegExp(
  String.raw`(?:^|[,.;]\s*|\b(?:[Aa]nd|[Ss]o|[Tt]hat's|[Tt]hat|[Tt]hen|is|are)\s+)(?:[Tt]he\s+|[Oo]ur\s+)?${PHRASE},?\s*(will|'ll|is going to|is gonna|needs to|has to|have to|should|to|is|'s)\s+(.+)$`,
  'u',
);
/** The same with a role said in lower case ("and then marketing will look into …"); only a known speaker counts. */
const THIRD_PERSON_LOWER =
  /(?:^|[,.;]\s*|\b(?:and|so|then|that)\s+)(?:the\s+|our\s+)?((?:[a-z][\w-]*\s){0,2}[a-z][\w-]*)\s+(?:will|'ll|is going to|is gonna|needs to|has to|is(?=\s+\w+ing\b))\s+(.+)$/i;
/** "Bob and Maria are going to …", "the I_D_ and the U_I_D_, you two will …": a task for two people, no one owner. */
const PLURAL = new RegExp(
  String.raw`(?:^|[,.;]\s*|\b(?:[Aa]nd|[Ss]o|[Tt]hat|[Tt]hen)\s+)(?:[Tt]he\s+)?${PHRASE}\s*and\s+(?:[Tt]he\s+)?${PHRASE},?\s*(?:you two\s+|you both\s+|both\s+|you\s+)?(?:are going to|are gonna|will|'ll|need to|have to|should|are to)\s+(.+)$`,
  'u',
);
/** "you two are going to …", "could you guys …": addressed to several people. */
const YOU_PLURAL =
  /\b(?:(?:can|could|would|will)\s+(?:you\s+(?:two|both|guys|all)|everyone|everybody|all of you)|you\s+(?:two|both|guys|all)(?:,?\s+you)?(?:\s+(?:are going to|are gonna|will|'ll|need to|have to|should|can|could|are (?:on|in charge of|responsible for)))|you and (?:i|me) (?:should|will|'ll|need to|have to|can|must))\s+(.+)$/i;
/** "the look and feel design is for Kate", "Steph gets the user interface design", "Bob is responsible for …". */
const GIVEN_TO = new RegExp(
  String.raw`(?:^|[,.;]\s*|\b(?:[Aa]nd|[Ss]o|[Tt]hen|[Nn]ow|[Oo]kay)\s+)(?:(?:[Tt]he\s+)?${PHRASE}\s*(takes care of|will take care of|is taking care of|is (?:responsible for|in charge of|handling|on)|will handle|handles|gets|takes|will take|will get)\s+([^,.;!?]{1,300})|((?:[Tt]he|[Aa]n?|[Ss]ome)\s[^,]{1,300}?)\s+(?:is|are|goes|go) (?:for|to)\s+(?:[Tt]he\s+)?${PHRASE})\s*(?:[,.!?]|$)`,
  'u',
);
/** "…, you get product evaluation": work handed to whoever is addressed. */
const YOU_GET =
  /(?:^|[,;]\s*|\b(?:and|so|then)\s+)you (?:get|take|have got)\s+((?:the\s+|some\s+)?[^,.;!?]+)/i;
/** "And U_I_D_, the technical functions design": a role or name, then the work, in a list of assignments. */
const ELLIPTICAL = new RegExp(
  String.raw`^(?:(?:and|so|okay|ok|then|now|um|uh|right)[,\s]+)*(?:for\s+)?(?:[Tt]he\s+)?${PHRASE}(?:,\s+|\s+(?=(?:the|a|an|some|your)\s))((?:the|a|an|some|your)\s[^?]+?)[,.]*$`,
  'iu',
);
/** "so we've got the working design for I_D_": work named for a role or a person. */
const WORK_FOR = new RegExp(
  String.raw`(?:^|[,.;]\s*|\b(?:got|have|is|and|so)\s+)((?:the|a|an|some)\s[^,.;]{1,300}?)\s+for\s+(?:the\s+)?${PHRASE}\s*(?:[,.;!?]|$)`,
  'u',
);
/**
 * "the industrial design is the first one, that's Kate, for the working design", "Kate for the budget, and for
 * marketing the user requirements": a role or name, then the work it is for.
 */
const ROLE_FOR =
  /(?:^|[,.;]\s*|\b(?:and|so|then|okay|but)\s+)(?:the\s+)?((?:[\p{L}_'-]+\s){0,2}[\p{L}_'-]+)(?:\s+is the (?:first|second|third|next|last) one)?,?\s*(?:(?:that's|which is|who is)\s+(?:you\s*)?[\p{L}'-]*,?\s*)?for\s+((?:the|a|an|some)\s[^,.;]+)|\bfor\s+(?:the\s+)?((?:[\p{L}_'-]+\s){0,2}?[\p{L}_'-]+)\s+((?:the|a|an)\s[^,.;]+)/giu;
// "we need to …", "we still need to …", "let's …", "we'll have to …"
const TEAM =
  /\b(?:we(?:\s+(?:still|really|also|probably|definitely|just|all|both|then|certainly|absolutely|obviously|basically|actually|maybe|kind of|sort of))?\s+(?:need to|have to|got to|must|should|'d better|had better)|shall we|we've got to|we(?:'ll| will| might| may)(?:\s+(?:still|also|probably|definitely))? (?:need|have) to|we(?:'re| are) (?:gonna|going to) (?:have|need) to|let's|let us)\s+(?=(.+)$)/gi;
// "why don't we plan to …": a suggestion to the team, as "let's" (said as a question).
const WHY_DONT_WE = /\bwhy (?:don't|do not) we\s+(.+?)\??$/i;
// "we'll …", "we're going to …": a plan only when it says it is for after the meeting.
const TEAM_WILL = /\b(?:we'll|we will|we're going to|we are going to|we're gonna)\s+(?=(.+)$)/gi;
// "someone should call the vendor", "whoever … they should email Hynek": a task for someone unnamed.
const ANYONE =
  /\b(?:(?:someone|somebody|anyone|anybody|everyone|everybody|they)\s+(?:should|needs? to|has to|have to|must)|(?:need|want|get|find)\s+(?:someone|somebody)\s+to)\s+(?=(.+)$)/gi;
// "who's going to book the room?", "can somebody take this?": a task for whoever volunteers.
const VOLUNTEER =
  /(?:^|[,;]\s*|\b(?:so|and|okay|ok|now|then|um|uh)\s+)(?:who(?:'s| is)?\s+(?:going to|gonna|will|can|wants to|would like to|'ll)|(?:can|could|would)\s+(?:someone|somebody|anyone|anybody))\s+(.+?)\??$/i;
// "I'd like you to …", "I need you to …", "don't forget to …": a request to whoever is addressed.
const WANT_YOU =
  /\b(?:i(?:'d| would) like you to|i want you to|i need you to|(?:(?:i(?:'d| would) like to|i want to|i'll|i will|can i|could i|let me)\s+)?ask you to|(?:your|his|her) (?:job|task|homework|assignment) (?:is|will be) to|why don't you|why do not you|it(?:'s| is) up to you to|don't forget to|do not forget to|remember to|be sure to|i (?:would )?(?:encourage|suggest|recommend|advise) you to)\s+(.+)$/i;
// "So check out the corporate website": an imperative at the start of a clause.
const IMPERATIVE =
  /^(?:(?:so|and|okay|ok|then|also|just|now|please|um|uh|maybe|for (?:the |our )?next (?:meeting|time|week))[,\s]+)*(.+)$/i;
// "what we want to do is to …", "my plan is to …": a plan for after the meeting ("I" the speaker's, "we" the team's).
const PLAN =
  /\b(?:what (i|we) (?:want|need|have|are going|'re going|'re gonna|am going|'m going|plan) to do(?: next)?(?:,\s*[\w ]+,)?\s+(?:is|it's)|(my|our|the) (?:plan|next step|idea) (?:is|was|would be))\s+(?:to\s+)?(.+)$/i;
// "what we need to decide is whether …"
const DECIDE = /\bwhat we(?:'re| re)? (?:really |still )?(?:need|have) to decide is\s+(.+)$/i;
// "you'll be sent a transcript …", "the slides will be sent to you"
const PASSIVE_SEND = /\byou(?:'ll| will) be sent\s+(.+)$/i;
// "A will do X, the B Y": a list of assignments that says its verb once.
const GAP = new RegExp(String.raw`,\s*(?:and\s+)?(?:[Tt]he\s+)?${PHRASE},?\s+((?:the|a|an|some)\s.+)$`, 'u');
/** Any clause: for rules that look at where the clause is, not at its words. */
const ANY_CLAUSE = /^/;

/** The items, and the clause is decided even when there are none. */
const one = (m: Match | undefined): Match[] => (m ? [m] : []);
/** The item if there is one; otherwise the next rule tries. */
const some = (m: Match | undefined): Match[] | undefined => (m ? [m] : undefined);
/** The shortest run of words at the end of a phrase that names a speaker ("and then marketing" → Marketing). */
const speakerAtEnd = (phrase: string, speakers: SpeakerDirectory) => {
  const words = phrase.split(/\s+/);
  return words
    .map((_, i) => resolveAddressee(words.slice(words.length - 1 - i).join(' '), speakers))
    .find(Boolean);
};
/** "Maria will …" read as a task: the work, and the work of those who share its verb. */
const gapped = (tail: string, who: string, speakers: SpeakerDirectory) => {
  const found = withGapped(tail, who, speakers);
  return found.length ? found : undefined;
};
/**
 * A promise by the speaker, unless a relative clause describes it ("… that I can tell …"); "I'll see if I can get
 * hold of them" is the speaker's promise to try, not a relative clause.
 */
const promise: Rule['build'] = (m, { text, speaker, speakers, sentence, all }) => {
  const before = text.slice(0, m.index);
  if (RELATIVE_BEFORE.test(before) && !TRY_TO.test(before)) return undefined;
  // "I can look into ho well Pedro and I can look into …": the speaker starts again with a partner; the later
  // promise is the one meant.
  const restart = JOINT_RESTART.exec(m[1]!);
  if (restart && isPerson(restart[1]!, speakers)) return undefined;
  // "Pedro and I can look into …": two people, no one owner.
  const joint = JOINT_BEFORE.exec(before);
  const found = toMatch(m[1]!, joint && isPerson(joint[1]!, speakers) ? undefined : speaker);
  return some(found && withOpenQuestion(found, sentence, all));
};
/** "I'll get back to you on that": what "that" is, the question asked just before, says what the task is. */
const GET_BACK_ON_THAT =
  /^(get back to (?:you|him|her|them|us|everyone|everybody))(?: (?:on|about))? (?:that|this|it)$/i;
/**
 * "Is it just a television remote?" — "I'll get back to you on that": the task is answering the question, so the
 * item says it ("Get back to you on whether is it just a television remote"). The question is the last sentence
 * asked (ending "?") within the few turns before, by anyone; without one the item stays as said.
 */
function withOpenQuestion(found: Match, sentence: Sentence, all: readonly Sentence[]): Match {
  const said = GET_BACK_ON_THAT.exec(found.text);
  if (!said) return found;
  for (let i = sentence.index - 1; i >= 0 && sentence.segmentIndex - all[i]!.segmentIndex <= 4; i--) {
    const asked = all[i]!.text;
    if (!asked.endsWith('?')) continue;
    const question = trimEndMatching(asked, /[?\s]/)
      .replace(/^(?:(?:so|and|or|but|uh|um|okay|well|then)[,\s]+)*/i, '')
      // "Is it …", "Who else …": the question's first word, not a name, in lower case.
      .replace(
        /^(?:Is|Are|Was|Were|Do|Does|Did|Can|Could|Will|Would|Should|Shall|Have|Has|Who|What|When|Where|Which|How|Why|Whether|If)\b/,
        (w) => w.toLowerCase(),
      );
    const words = question.split(/\s+/).length;
    if (words < 3 || words > 25) return found;
    const on = /^(?:who|what|when|where|which|how|why|whether|if)\b/i.test(question) ? 'on' : 'on whether';
    return { ...found, text: `${said[1]} ${on} ${question}` };
  }
  return found;
}
/** A partner said just before the speaker's own promise: "Pedro and I will …". */
const JOINT_BEFORE = new RegExp(String.raw`${NAME_START}(\p{Lu}[\p{L}'-]*)\s+and\s*$`, 'u');
/** The same, later in what was promised: the speaker starting again with a partner. */
const JOINT_RESTART =
  /\s(\p{Lu}[\p{L}'-]*)\s+and\s+I\s+(?:can|could|will|'ll|would|should|am going to|'m going to)\b/u;
/** "I'll see if …", "let me see whether …", "I'm going to try and see if …": before "I can …", a promise to try. */
const TRY_TO =
  /\b(?:i'll|i will|let me|i'm going to|i'm gonna|i am going to)\s+(?:just\s+|try and\s+|try to\s+)?see\s+(?:if|whether)\b/i;

export const RULES: readonly Rule[] = [
  { name: 'meeting-talk', pattern: IN_MEETING, build: () => [] },
  {
    name: 'owned-job',
    pattern: OWNED_JOB,
    build: (m, { speakers }) => {
      const owner = resolveAddressee(m[1]!, speakers) ?? personalName(m[1]!);
      return owner ? one(toMatch(m[2]!, owner)) : undefined;
    },
  },
  { name: 'passive-send', pattern: PASSIVE_SEND, build: (m) => one(toMatch(`send ${m[1]}`, undefined)) },
  {
    name: 'ask-someone-to',
    pattern: ASK_TO,
    build: (m, { speakers, speaker }) => {
      if (/^you\b/i.test(m[1]!.trim())) return undefined;
      const who = resolveAddressee(m[1]!, speakers);
      return who ? one(toMatch(m[2]!, who, { requester: speaker })) : undefined;
    },
  },
  {
    // Two people, or "you two": the task has no single owner.
    name: 'two-people',
    pattern: PLURAL,
    build: (m, { speakers }) => {
      if (!isPerson(m[1]!, speakers) || !isPerson(m[2]!, speakers)) return undefined;
      // "Adam and Don will meet": two people meeting after this one is a follow-up of its own.
      const meet = /^(?:(?:sort of|kind of|probably|also|then|just)\s+)*meet\b(.*)$/i.exec(m[3]!.trim());
      return some(
        meet
          ? toMatch(`${m[1]!.trim()} and ${m[2]!.trim()} meet${meet[1]}`, undefined, { allowAnyVerb: true })
          : toMatch(m[3]!, undefined),
      );
    },
  },
  {
    name: 'you-several',
    pattern: YOU_PLURAL,
    build: (m) => {
      // "you two are on plasticine duty": the work is a noun, not a verb.
      const onDuty = /\bare (?:on|in charge of|responsible for)\s*$/i.test(m[0].slice(0, -m[1]!.length));
      return some(toMatch(m[1]!, undefined, { allowAnyVerb: onDuty }));
    },
  },
  {
    name: 'name-then-request',
    pattern: [NAME_THEN_REQUEST, REQUEST_COMMA_NAME],
    build: (m, { speakers, speaker }) => {
      const addressed = nameIn(m[1]!);
      if (!addressed) return undefined;
      const who = speakers.resolve(addressed) ?? resolveAddressee(addressed, speakers) ?? addressed;
      return withGapped(m[2]!, who, speakers, { requester: speaker });
    },
  },
  {
    name: 'request',
    pattern: [REQUEST, ASSIGNMENT, MAKE_SURE_YOU, WANT_YOU, PLEASE],
    build: (m, context) =>
      !context.where.question && isGenericYou(context.text, m) ? undefined : one(requestTo(m, context)),
  },
  {
    // The list is split by owner where the AMI scenario names one (`scenarioRound`); otherwise it is one item.
    name: 'each-has',
    pattern: EACH_HAS,
    build: (m) =>
      some(
        toMatch(/^(?:the|a|an|some|your)\s/i.test(m[1]!) ? `do ${m[1]}` : `do the ${m[1]}`, undefined, {
          allowAnyVerb: true,
        }),
      ),
  },
  // "so you do the looking around …": only when what follows is work ("you know, they should …" goes on).
  { name: 'you-do', pattern: YOU_DO, build: (m, context) => some(requestTo(m, context)) },
  {
    name: 'who-volunteers',
    pattern: VOLUNTEER,
    build: (m, { sentence, all, speakers, where }) =>
      where.question ? some(toMatch(m[1]!, responder(sentence, all, speakers, VOLUNTEERED))) : undefined,
  },
  {
    name: 'joint-offer',
    pattern: JOINT_OFFER,
    build: (m, { speakers }) => (isPerson(m[1]!, speakers) ? some(toMatch(m[2]!, undefined)) : undefined),
  },
  // "I will tr getting information, I'll try and forward it": the first promise that names work.
  { name: 'promise', pattern: SELF, build: promise },
  { name: 'promise-to-get-back', pattern: LET_ME_GET_BACK, build: promise },
  { name: 'team-suggestion', pattern: WHY_DONT_WE, build: (m) => some(toMatch(m[1]!, undefined)) },
  // A question that is not a request asks about the task, it does not set it.
  { name: 'question', pattern: ANY_CLAUSE, build: (_, { where }) => (where.question ? [] : undefined) },
  {
    name: 'third-person',
    pattern: THIRD_PERSON,
    build: (m, { speakers }) => {
      const marker = m[2]!;
      const resolved = resolveAddressee(m[1]!, speakers);
      // "Maria is preparing the budget" only with a known speaker; "Maria to send …" not with any capitalised word.
      const progressive = marker === 'is' || marker === "'s";
      const who = progressive
        ? /^\w+ing\b/.test(m[3]!)
          ? resolved
          : undefined
        : (resolved ?? personalName(m[1]!));
      return who ? gapped(m[3]!, who, speakers) : undefined;
    },
  },
  {
    // The subject is the shortest run of words before the verb that names a speaker ("and then marketing").
    name: 'third-person-lower-case',
    pattern: THIRD_PERSON_LOWER,
    build: (m, { speakers }) => {
      const who = speakerAtEnd(m[1]!, speakers);
      return who ? gapped(m[2]!, who, speakers) : undefined;
    },
  },
  {
    name: 'given-to',
    pattern: GIVEN_TO,
    build: (m, { speakers, speaker }) => {
      const phrase = m[1] ?? m[5]!;
      const work = (m[3] ?? m[4]!).trim();
      const who = resolveAddressee(phrase, speakers) ?? personalName(phrase);
      // "gets the design" hands out work only when it names work; "is responsible for …" always does.
      const strong = m[2] !== undefined && /responsible|charge|care|handl/.test(m[2]);
      if (!who || who === speaker || !(strong || endsWithWork(work))) return undefined;
      const verb = /care/.test(m[2] ?? '') ? 'take care of ' : /handl/.test(m[2] ?? '') ? 'handle ' : '';
      return some(toMatch(`${verb}${work}`, who, { allowAnyVerb: true }));
    },
  },
  {
    name: 'you-get',
    pattern: YOU_GET,
    build: (m) => {
      if (!endsWithWork(m[1]!)) return undefined;
      const found = toMatch(m[1]!, undefined, { allowAnyVerb: true });
      return found ? [{ ...found, toYou: true }] : undefined;
    },
  },
  {
    name: 'role-for-work',
    pattern: ROLE_FOR,
    collect: true,
    build: (m, { speakers, speaker }) => {
      const [phrase, work] = m[1] !== undefined ? [m[1], m[2]!] : [m[3]!, m[4]!];
      if (!endsWithWork(work)) return undefined;
      const who = speakerAtEnd(phrase, speakers);
      if (!who || who === speaker) return undefined;
      return some(toMatch(work, who, { allowAnyVerb: true }));
    },
  },
  {
    name: 'work-for-role',
    pattern: WORK_FOR,
    build: (m, { speakers, speaker }) => {
      if (!endsWithWork(m[1]!)) return undefined;
      const who = resolveAddressee(m[2]!, speakers);
      return who && who !== speaker ? some(toMatch(m[1]!, who, { allowAnyVerb: true })) : undefined;
    },
  },
  {
    name: 'role-then-work',
    pattern: ELLIPTICAL,
    build: (m, { speakers, speaker }) => {
      if (!endsWithWork(m[2]!)) return undefined;
      const who = resolveAddressee(m[1]!, speakers);
      return who && who !== speaker ? some(toMatch(m[2]!, who, { allowAnyVerb: true })) : undefined;
    },
  },
  {
    name: 'plan',
    pattern: PLAN,
    build: (m, { speaker }) => {
      if (IN_MEETING.test(m[3]!)) return undefined;
      const mine = (m[1] ?? m[2] ?? '').toLowerCase();
      return some(toMatch(m[3]!, mine === 'i' || mine === 'my' ? speaker : undefined));
    },
  },
  { name: 'decide', pattern: DECIDE, build: (m) => one(toMatch(`decide ${m[1]}`, undefined)) },
  // "let's go with the round one, let's explore a two-piece": the first trigger that introduces a task.
  { name: 'team-must', pattern: TEAM, build: (m) => some(toMatch(m[1]!, undefined)) },
  { name: 'anyone', pattern: ANYONE, build: (m) => some(toMatch(m[1]!, undefined)) },
  {
    // "we'll write to you about …" is a follow-up whenever it is said; other plans only when said to be for later.
    name: 'team-will',
    pattern: TEAM_WILL,
    build: (m, { sentence }) =>
      LATER.test(sentence.text) || FOLLOW_UP.test(m[1]!) ? some(toMatch(m[1]!, undefined)) : undefined,
  },
  {
    name: 'imperative',
    pattern: IMPERATIVE,
    build: (m) => (IMPERATIVE_VERBS.test(m[1]!) ? one(toMatch(m[1]!, undefined)) : undefined),
  },
];

/**
 * At most this many matches of a global pattern are tried in a clause. Each looks at the rest of the clause, so
 * trying every one of a long run ("I'll I'll I'll …") would take time quadratic in its length.
 */
const MAX_TRIGGERS = 20;

/** The items of a clause: the first rule that answers, in table order. */
export function matchClause(context: ClauseContext, rules: readonly Rule[] = RULES): Match[] {
  for (const rule of rules) {
    const patterns: readonly RegExp[] = Array.isArray(rule.pattern) ? rule.pattern : [rule.pattern as RegExp];
    if (patterns[0]!.global) {
      const collected: Match[] = [];
      let tried = 0;
      for (const m of context.text.matchAll(patterns[0]!)) {
        if (++tried > MAX_TRIGGERS) break;
        const found = rule.build(m, context);
        if (found && !rule.collect) return tagged(found, rule);
        if (found) collected.push(...tagged(found, rule));
      }
      if (collected.length) return collected;
      continue;
    }
    let match: RegExpExecArray | null = null;
    for (const pattern of patterns) {
      match = pattern.exec(context.text);
      if (match) break;
    }
    if (!match) continue;
    const found = rule.build(match, context);
    if (found) return tagged(found, rule);
  }
  return [];
}

/** Items with the name of the rule that found them. */
const tagged = (found: Match[], rule: Rule) => found.map((m) => ({ ...m, rule: rule.name }));

/** A name between commas after the first words of a task: "work more, Baba, on …" (the words before it, the name). */
const VOCATIVE = /^((?:[\p{Ll}'-]+\s){0,3}[\p{Ll}'-]+),\s*(\p{Lu}[\p{Ll}'-]+),\s*/u;
/** Whom a request is said to and what it asks: "can you send the notes, Maria?" → Maria, "send the notes". */
function requestTo(m: RegExpExecArray, context: ClauseContext): Match | undefined {
  const { text, sentence, all, speakers, speaker, where } = context;
  // "can you send the notes, Maria?": the addressee closes the sentence.
  const trailing = /,\s*(\p{Lu}[\p{L}'-]+)\s*[?.!]*$/u.exec(m[1]!);
  const trailingName = trailing ? nameIn(trailing[1]!) : undefined;
  // "… meet with, Hynek": after a preposition the name is the object, not the addressee.
  const objectOf =
    trailing && /\b(?:with|to|for|from|about|at|on|by|and|or)\s*$/i.test(m[1]!.slice(0, trailing.index));
  if (trailing && trailingName && !objectOf) {
    const body = m[1]!.slice(0, trailing.index);
    return toMatch(body, speakers.resolve(trailingName) ?? trailingName, { requester: speaker });
  }
  // "you will have to work more, Baba, on the buttons": the addressee said between commas, inside the task.
  const vocative = VOCATIVE.exec(m[1]!);
  const called = vocative && isPerson(vocative[2]!, speakers) ? nameIn(vocative[2]!) : undefined;
  if (vocative && called && !/\b(?:with|to|for|from|about|at|on|by|and|or)$/i.test(vocative[1]!)) {
    const body = `${vocative[1]} ${m[1]!.slice(vocative.index + vocative[0].length)}`;
    return toMatch(body, speakers.resolve(called) ?? resolveAddressee(called, speakers) ?? called, {
      requester: speaker,
    });
  }
  // Several assignments in one turn go to several people: the reply only answers the last one.
  const before = sentence.text.slice(0, Math.max(0, sentence.text.indexOf(text) + m.index));
  const named = topicBefore(before, sentence, all, speakers);
  const who =
    named ??
    (where.last ? (responder(sentence, all, speakers) ?? partner(sentence, all, speakers)) : undefined);
  const found = toMatch(m[1]!, who, { requester: speaker });
  if (!found || !/\byou\b/i.test(m[0])) return found;
  // Nobody named: whoever answered is a guess, which the AMI scenario's owner of the work overrules.
  return !who ? { ...found, toYou: true } : named ? found : { ...found, guessed: true };
}

/** The items of a sentence: an explicit "action item: …", or each clause's. */
export function matchSentence(
  sentence: Sentence,
  all: readonly Sentence[],
  speakers: SpeakerDirectory,
  rules: readonly Rule[] = RULES,
): Match[] {
  const speaker = speakers.nameOf(sentence.speaker);
  const context = (text: string, where: ClauseContext['where']): ClauseContext => ({
    text,
    sentence,
    all,
    speakers,
    speaker,
    where,
  });
  const explicit = EXPLICIT.exec(sentence.text);
  if (explicit) {
    // "action item for Maria: …", "Maria's action item is to …" name the owner.
    const owner = explicit[1] ?? explicit[2];
    const ownerName = owner ? (resolveAddressee(owner, speakers) ?? personalName(owner)) : undefined;
    if (ownerName) return one(toMatch(explicit[3]!, ownerName, { allowAnyVerb: true }));
    // "action item: I'll send the deck" still names its owner; "action item: update the docs" names none.
    const inner = matchClause(context(explicit[3]!, { last: true, question: false }), rules);
    return inner.length ? inner : one(toMatch(explicit[3]!, undefined, { allowAnyVerb: true }));
  }
  const question = sentence.text.endsWith('?');
  const clauses = clausesOf(sentence.text);
  return clauses.flatMap((clause, i) =>
    matchClause(
      context(clause, {
        last: i === clauses.length - 1,
        // "We might need to drop you a line, but can I thank you?": only the last clause is asked.
        question: question && i === clauses.length - 1,
      }),
      rules,
    ),
  );
}

/** Clauses of a sentence that can each hold a task: "…, and I'll send …", "…; you have to …". */
export function clausesOf(text: string): string[] {
  return text
    .split(
      /;\s+|,\s+but\s+(?=(?:can|could|would|will|do|does|is|are|shall|should)\s+(?:i|we|you)\b)|,?\s+and then\s+(?=(?:i|we|you)\b)|,?\s+and\s+(?=(?:i|we)(?:'ll| will)\b)|(?:,\s+(?:and\s+)?|\s+and\s+)(?=you (?:have|need) to\b)|,\s+(?:and\s+|in fact\s+|so\s+)?(?=you (?:two|both|guys)\b)/i,
    )
    .map((c) => c.trim())
    .filter(Boolean);
}
/** Nothing but fillers before a clause's "if you could …". */
const POLITE_OPENING = /^(?:(?:so|and|okay|ok|now|then|well|maybe|um|uh|alright)[,\s]+)*$/i;
/**
 * "You can find them easily" after "when …" or "so that …" is anyone at all, not an assignment; so is "you
 * can't …, you can select …", someone explaining how a thing works.
 */
function isGenericYou(clause: string, request: RegExpExecArray): boolean {
  if (!/\byou\s+(?:can|could)\s*$/i.test(request[0].slice(0, request[0].length - request[1]!.length)))
    return false;
  // "If you could maybe come up with some shapes": a polite request when it opens the clause.
  if (/^if\s/i.test(request[0]) && POLITE_OPENING.test(clause.slice(0, request.index))) return false;
  const before = clause.slice(0, request.index + Math.max(0, request[0].search(/\byou\b/i)));
  return (
    /\b(?:when|whenever|if|so that|once|where|then|because|'cause)\b/i.test(before) ||
    /\bcan't\b|\b(?:if|when|whenever) you\b/i.test(clause)
  );
}
/** An assignment and those that share its verb: "do the look and feel design, the U_I_D_ the interface". */
function withGapped(
  tail: string,
  who: string,
  speakers: SpeakerDirectory,
  options: { requester?: string; listed?: boolean } = {},
): Match[] {
  const gap = GAP.exec(tail);
  const second = gap ? resolveAddressee(gap[1]!, speakers) : undefined;
  if (!gap || !second || second === who) {
    // "…, the U_I_D_ the interface concept, and the trend-watching": the last of a list, to whoever is left.
    const last = options.listed ? /,\s*and\s+((?:the|a|an|some)\s[^,]+)$/i.exec(tail) : null;
    const found = toMatch(last ? tail.slice(0, last.index) : tail, who, options);
    if (!found || !last) return [found].filter(isMatch);
    const rest = toMatch(`${verbOf(found.text)} ${last[1]}`, undefined, { allowAnyVerb: true });
    return [found, ...(rest ? [{ ...rest, toYou: true }] : [])];
  }
  const first = toMatch(tail.slice(0, gap.index), who, options);
  if (!first) return [];
  const rest = withGapped(`${verbOf(first.text)} ${gap[2]}`, second, speakers, { ...options, listed: true });
  return [first, ...rest];
}
function isMatch(m: Match | undefined): m is Match {
  return !!m;
}
