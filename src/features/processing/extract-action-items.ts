import { resolveDueDate } from './resolve-due-date.ts';
import { contentWords, type Sentence, tokenize } from './sentences.ts';

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
    'evaluate handle chase call figure get circle drop pass communicate interact liaise discuss meet draw push enter hand think work look try talk speak reach come do make have take'
  ).split(' '),
);
/** Verbs above that need a particle or an object to be a task: "work on …", "look into …", "make a …". */
const NEEDS_COMPLEMENT: Record<string, RegExp> = {
  set: /^set up\b/,
  sort: /^sort out\b/,
  clean: /^clean up\b/,
  fill: /^fill (?:in|out)\b/,
  follow: /^follow up\b/,
  think: /^think (?:about|through)\b/,
  // "tell us how …", "I'll tell you": a question or talk in the meeting, not a task.
  tell: /^tell (?!us\b|me\b|you\b|them\b|it\b|it's\b)/,
  remind: /^remind (?:(?:me|us) to\b|(?!me\b|us\b))/,
  work: /^work (?:on|out|together (?:on|with|to (?!reach\b|achieve\b|meet\b|get there\b)))\b/,
  look: /^(?:look (?:into|at|up|for|and see (?:what|whether|if|how))|look more into)\b/,
  try: /^try (?:out\b|(?:a|an|the|some|different|other|new|more|several|these|those) \w)/,
  talk: /^talk to\b/,
  interact: /^interact (?:more )?with\b/,
  liaise: /^liaise with\b/,
  // "discuss it with Maria" is for later; "discuss the budget" is what a meeting does.
  discuss: /^discuss (?:(?:[\w'-]+ ){0,4})?with (?!us\b|everyone\b|everybody\b|the group\b)\S/,
  meet: /^meet,? (?:(?:[\w'-]+,? ){0,3})?(?:with|up with),? \S/,
  draw: /^draw (?:up|out)\b/,
  push: /^push (?:(?:[\w'-]+ ){0,3})?on\b/,
  speak: /^speak (?:to|with)\b/,
  reach: /^reach out\b/,
  come: /^come (?:up with|back to)\b/,
  enter: /^enter,? (?:the|this|that|these|all|some|our|my|your)\b/,
  hand: /^hand (?:off|over|out|in)\b/,
  put: /^put (?:(?!(?:it|them|that|this|one|two|three|four|five|six|seven)\b)[\w' -]+ (?:in|on|into|onto) (?:the|our|a)\b|(?:[\w'-]+ ){0,3}together\b)/,
  // "bring it up" shows something in the meeting; "bring the prototype" is work for later.
  bring: /^bring (?!(?:[\w'-]+ ){0,4}up\b)/,
  call: /^call (?!it\b|them\b|this\b|that\b|these\b|those\b)\S/,
  figure: /^figure (?:out\b|[\w' -]+ out\b)/,
  get: /^get (?:back to (?:you|him|her|them|us|everyone|everybody)\b|in touch with|(?:(?:the|more|some|those|these|you|him|her|them|us|all the)\s+)+(?:details|information|info|numbers|figures|data|answers?|quotes?|estimates?)\b|hold of|(?:[\w'-]+ ){1,3}to (?!be\b|the\b|a\b|that\b|this\b)\w+|(?:[\w'-]+ ){1,5}(?:done|signed|sorted|fixed|ready|finished|sent|approved|booked|set up)\b(?! by (?:the|your|our|my|his|her|their|a|an)\b))/,
  circle: /^circle back\b/,
  pass: /^pass (?:[\w'-]+ ){0,3}(?:on|along)\b/,
  drop: /^drop (?:[\w'-]+ ){1,2}a (?:line|note|email)\b/,
  do: /^do (?:the|a|an|some|my|our|your|his|her|their) (?!(?:thing|stuff|same|other|rest|best)\b)\w/,
  make: /^make (?:a|an|the|some|sure|up)\b/,
  type: /^type up\b/,
  write: /^write (?!(?:it |this |that |some stuff |stuff |things? )?down\b)/,
  finish: /^finish (?!up\b|here\b|now\b|off\b|this meeting\b)/,
  ask: /^ask (?!you\b|everyone\b|everybody\b|people\b)(?:the |our |a |an )?[\w-]+(?: [\w-]+)? (?:to|about|for|whether|if)\b/,
  have: /^have (?:a (?:quick |closer |good |proper )?look\b|(?:[\w'-]+ ){1,5}(?:done|ready|finished|sent|written|sorted)\b)/,
  take: /^take (?:a (?:quick |closer |good |proper )?look\b|care of (?!it\b|that\b|this\b|(?:(?:our|your|my|the|their)\s+)?(?:children|kids|people|users|customers|family|yourself|ourselves|themselves|him|her|them|us|each other)\b))/,
};
/** Imperatives that are tasks on their own ("check out the website", "send me the slides"); no meeting verbs. */
const IMPERATIVE_VERBS =
  /^(?:check(?: out)?|send|email|e-mail|mail|forward|book|schedule|contact|prepare|draft|write up|type up|draw up|update|fix|review|fill (?:in|out)|sign|submit|reply to|remind|print|order|buy|renew|cancel|confirm|complete|finali[sz]e|circulate|distribute|post|come up with|find out|follow up|look into)\b/i;
/** Talk about the meeting itself, happening now: not work for later. */
const IN_MEETING =
  /\b(?:right now|at the moment|in this meeting|during this meeting|this slide|next slide|first present|share (?:my|the|your) screen|\b(?:do|give|start|begin|continue) (?:my|our|the|this) presentation\b|in the chat|in a (?:moment|minute|second|sec)\b|share my time|your (?:audio|mic|microphone|headset|camera|video)\b|(?:we|i)(?:'ll| will)? (?:then|first|now)\b)/i;
/** First words that show the clause is not an instruction ("I will not…", "we should, uh, maybe…"). */
const NOT_AN_INSTRUCTION =
  /^(?:not|never|no|could|would|should|can|will|might|must|so|that|this|it|there|what|which|and|but|or|if|when|because|all|the|a|an|to|of|in|on|for|with|at|as|you|we|they|he|she|i|always|still|just say)\b/i;
const LEADING_FILLER =
  /^(?:(?:for sure|please|just|also|probably|definitely|certainly|quickly|then|actually|really|go ahead and|go and|try and|try to|make sure to|maybe|perhaps|have to|need to|has to|needs to|got to|gotta|sort of|kind of|uh|um|all|first|also|still|now|be|again|eventually|soon|then|(?:before|by|after|until|for) (?:the )?(?:next (?:week|meeting|time|session)|tomorrow|(?:mon|tues|wednes|thurs|fri)day|the end of the \w+))[\s,]+)+/i;
const SPOKEN_TAG =
  /(?:,?\s*(?:okay|ok|right|yeah|please|then|too|as well|if possible|if you can|thanks|maybe|perhaps|alright|eh|yes|I think|I guess|as usual|so|or whatever|or something|or anything)\b)+[?.!]*$/i;
const ACKNOWLEDGEMENT =
  /^(?:\w{1,2}\s+)?(?:sure|yes|yeah|yep|ok|okay|will do|on it|absolutely|of course|no problem|definitely|sounds good|got it|i can|i will|i'll|alright|all right|'kay|kay|fine)\b/i;
/** A reply that takes a task on, not just listens ("yeah, absolutely", "sure", "I can"). */
const STRONG_ACKNOWLEDGEMENT =
  /^(?:(?:yeah|yes|okay|ok)[,.!\s]+)?(?:sure|yes|absolutely|will do|of course|definitely|no problem|i can|i will|i'll)\b/i;
/** Answers to "who's going to …?" that take the task on ("I can", "me"); a plain "yes" does not. */
const VOLUNTEERED =
  /^(?:(?:sure|yeah|yes|okay|ok|alright)[,.!\s]+)?(?:i will|i'll|i can|i could|me|i'm happy to|i'd be happy to|let me|i'm on it|i'll take)\b/i;
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
    "did are is was were have has had let like wherever whoever whatever whenever however i'm i'll i've i'd " +
    "we're we'll we've you're you'll it's that's there's"
  ).split(' '),
);

// Patterns that capture a name are case-sensitive (a name is capitalised), so they spell out both cases.
const NAME = String.raw`(\p{Lu}[\p{L}'-]+(?:\s\p{Lu}[\p{L}'-]+)?)`;
/** A role or name phrase: "Industrial Designer", "User Interf Interface Designer", "I_D_", "the PM". */
// One to four words, each after exactly one space: a word is never split into pieces (that was exponential).
const PHRASE = String.raw`(\p{Lu}[\p{L}_'-]*(?:\s\p{Lu}[\p{L}_'-]*){0,3}\s?)`;
const YOU_WILL = String.raw`(?:you(?:'re| are)\s+(?:going to|gonna)|you(?:'ll| will)(?:\s+(?:need|have) to)?|you\s+(?:need|have|ought) to|you\s+(?:should|must|can|could)|you)`;
const ASK = String.raw`(?:[Cc]an|[Cc]ould|[Ww]ould|[Ww]ill)\s+you`;

// "action item: …", "to-do: …", "next step is to …"
const EXPLICIT = new RegExp(
  String.raw`(?:\b(\p{Lu}[\p{L}'-]+)'s\s+)?\b(?:[Aa]ction [Ii]tems?|[Tt]o-?[Dd]os?|[Nn]ext [Ss]teps?|ACTION ITEMS?|TODOS?)(?:\s+for\s+${NAME})?\s*(?:(?:is|are)\b\s*:?|:|-)\s*(?:to\s+)?(.+)$`,
  'u',
);
// "Maria's job is to …", "the Industrial Designer's task will be to …"
const OWNED_JOB = new RegExp(
  String.raw`\b${PHRASE}'s\s+(?:job|task|homework|assignment)\s+(?:is|will be)\s+to\s+(.+)$`,
  'u',
);
// "I'll …", "I will …", "I'm going to …", "I need to …"
const SELF =
  /\b(?:i'll|i will|i'm going to|i am going to|i'm gonna|i need to|i have to|i've got to|i can|i shall|i (?:still|also|just|really|probably|definitely|actually|certainly) (?:need to|have to|must|will|should|want to|plan to)|i should|i'd better|i ought to|i plan to|i'm planning to|i intend to|i(?:'d| would) be happy to|i'm happy to|i am happy to|i volunteer to|i promise to|i'll make sure to),?\s+(?=(.+)$)/gi;
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
  /(?:^|[,;]\s*|\b(?:and|so|okay|um|uh)\s+)(?:(?:basically|really|actually|also|just|then|now|maybe|probably|definitely)\s+)*(?:you(?:'re| are)\s+(?:going to|gonna)|you(?:'ll| will)(?:\s+(?:need|have) to)?(?!\s+be\b)|you\s+(?:need|have) to|you\s+(?:should|can|could))\s+(.+)$/i;
const RELATIVE_BEFORE = /\b(?:that|which|who|what|how|where|if|whether|than|as)\s*$/i;
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
  String.raw`(?:^|[,.;]\s*|\b(?:[Aa]nd|[Ss]o|[Tt]hat|[Tt]hen)\s+)(?:[Tt]he\s+)?${PHRASE}\s*and\s+(?:[Tt]he\s+)?${PHRASE},?\s*(?:you two\s+|you both\s+|both\s+)?(?:are going to|are gonna|will|'ll|need to|have to|should|are to)\s+(.+)$`,
  'u',
);
/** "you two are going to …", "could you guys …": addressed to several people. */
const YOU_PLURAL =
  /\b(?:(?:can|could|would|will)\s+(?:you\s+(?:two|both|guys|all)|everyone|everybody|all of you)|you\s+(?:two|both|guys|all)(?:,?\s+you)?(?:\s+(?:are going to|are gonna|will|'ll|need to|have to|should|can|could|are (?:on|in charge of|responsible for)))|you and (?:i|me) (?:should|will|'ll|need to|have to|can|must))\s+(.+)$/i;
/** "the look and feel design is for Kate", "Steph gets the user interface design", "Bob is responsible for …". */
const GIVEN_TO = new RegExp(
  String.raw`(?:^|[,.;]\s*|\b(?:[Aa]nd|[Ss]o|[Tt]hen|[Nn]ow|[Oo]kay)\s+)(?:(?:[Tt]he\s+)?${PHRASE}\s*(takes care of|will take care of|is taking care of|is (?:responsible for|in charge of|handling|on)|will handle|handles|gets|takes|will take|will get)\s+([^,.;!?]+)|((?:[Tt]he|[Aa]n?|[Ss]ome)\s[^,]+?)\s+(?:is|are|goes|go) (?:for|to)\s+(?:[Tt]he\s+)?${PHRASE})\s*(?:[,.!?]|$)`,
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
  String.raw`(?:^|[,.;]\s*|\b(?:got|have|is|and|so)\s+)((?:the|a|an|some)\s[^,.;]+?)\s+for\s+(?:the\s+)?${PHRASE}\s*(?:[,.;!?]|$)`,
  'u',
);
/**
 * "the industrial design is the first one, that's Kate, for the working design", "Kate for the budget, and for
 * marketing the user requirements": a role or name, then the work it is for.
 */
const ROLE_FOR =
  /(?:^|[,.;]\s*|\b(?:and|so|then|okay|but)\s+)(?:the\s+)?((?:[\p{L}_'-]+\s){0,2}[\p{L}_'-]+)(?:\s+is the (?:first|second|third|next|last) one)?,?\s*(?:(?:that's|which is|who is)\s+(?:you\s*)?[\p{L}'-]*,?\s*)?for\s+((?:the|a|an|some)\s[^,.;]+)|\bfor\s+(?:the\s+)?((?:[\p{L}_'-]+\s){0,2}?[\p{L}_'-]+)\s+((?:the|a|an)\s[^,.;]+)/giu;
/** What is handed out as work when no verb says so: "the technical design", "the minutes", "the budget report". */
const WORK_NOUN =
  /\b(?:duty|design|report|specs?|specifications?|evaluation|functions|requirements|prototype|presentation|minutes|agenda|summary|analysis|draft|proposal|plan|slides|deck|budget|review|research|study|survey|documentation|docs|notes|contract|schedule|booking|paperwork|model|mock-?up|demo|tests?|testing|experiments?|write-?up|paper|figures|transcripts?|estimate|quote|catering|logistics|invit(?:es?|ations?)|website|code|implementation|layout|components)\b/i;
// "we need to …", "we still need to …", "let's …", "we'll have to …"
const TEAM =
  /\b(?:we(?:\s+(?:still|really|also|probably|definitely|just|all|both|then|certainly|absolutely|obviously|basically|actually|maybe|kind of|sort of))?\s+(?:need to|have to|got to|must|should|'d better|had better)|shall we|we've got to|we(?:'ll| will| might| may)(?:\s+(?:still|also|probably|definitely))? (?:need|have) to|we(?:'re| are) (?:gonna|going to) (?:have|need) to|let's|let us)\s+(?=(.+)$)/gi;
// "we'll …", "we're going to …": a plan only when it says it is for after the meeting.
/** Follow-ups to people outside the meeting: a task whenever they are promised. */
const FOLLOW_UP =
  /^(?:(?:also|then|certainly|definitely|of course)[,\s]+)*(?:write to|send|e-?mail|follow up|get back to|circulate|forward|drop (?:\w+ ){1,2}a (?:line|note))\b/i;
const TEAM_WILL = /\b(?:we'll|we will|we're going to|we are going to|we're gonna)\s+(?=(.+)$)/gi;
// "someone should call the vendor", "whoever … they should email Hynek": a task for someone unnamed.
const ANYONE =
  /\b(?:(?:someone|somebody|anyone|anybody|everyone|everybody|they)\s+(?:should|needs? to|has to|have to|must)|(?:need|want|get|find)\s+(?:someone|somebody)\s+to)\s+(?=(.+)$)/gi;
// "who's going to book the room?", "can somebody take this?": a task for whoever volunteers.
const VOLUNTEER =
  /(?:^|[,;]\s*|\b(?:so|and|okay|ok|now|then|um|uh)\s+)(?:who(?:'s| is)?\s+(?:going to|gonna|will|can|wants to|would like to|'ll)|(?:can|could|would)\s+(?:someone|somebody|anyone|anybody))\s+(.+?)\??$/i;
// "I'd like you to …", "I need you to …", "don't forget to …": a request to whoever is addressed.
const WANT_YOU =
  /\b(?:i(?:'d| would) like you to|i want you to|i need you to|(?:(?:i(?:'d| would) like to|i want to|i'll|i will|can i|could i|let me)\s+)?ask you to|(?:your|his|her) (?:job|task|homework|assignment) (?:is|will be) to|don't forget to|do not forget to|remember to|be sure to|i (?:would )?(?:encourage|suggest|recommend|advise) you to)\s+(.+)$/i;
// "So check out the corporate website": an imperative at the start of a clause.
const IMPERATIVE =
  /^(?:(?:so|and|okay|ok|then|also|just|now|please|um|uh|maybe|for (?:the |our )?next (?:meeting|time|week))[,\s]+)*(.+)$/i;
const LATER =
  /\b(?:next (?:meeting|time|week|month|session)|for the next|before the next|by the next|after (?:the|this) meeting|later|tomorrow|by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|the end)|in the meantime|meantime|afterwards|offline|off-line)\b/i;
// "what we want to do is to …", "my plan is to …": a plan for after the meeting ("I" the speaker's, "we" the team's).
const PLAN =
  /\b(?:what (i|we) (?:want|need|have|are going|'re going|'re gonna|am going|'m going|plan) to do(?: next)?(?:,\s*[\w ]+,)?\s+(?:is|it's)|(my|our|the) (?:plan|next step|idea) (?:is|was|would be))\s+(?:to\s+)?(.+)$/i;
// "what we need to decide is whether …"
const DECIDE = /\bwhat we(?:'re| re)? (?:really |still )?(?:need|have) to decide is\s+(.+)$/i;
// "you'll be sent a transcript …", "the slides will be sent to you"
const PASSIVE_SEND = /\byou(?:'ll| will) be sent\s+(.+)$/i;

interface Match {
  text: string;
  assignee?: string;
  /** Said to "you" with nothing to tell who that is: the one person left in a round of assignments, if any. */
  toYou?: boolean;
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
  /** Who was given work, by whom and in which turn: for "… and you get product evaluation". */
  const given: { by: string; to: string; segment: number }[] = [];
  const kept: { assignee?: string; words: Set<string>; at: number }[] = [];
  let quoteOpen = false;
  for (const sentence of sentences) {
    if (sentence.index === 0 || sentences[sentence.index - 1]!.segmentIndex !== sentence.segmentIndex)
      quoteOpen = false;
    const said = withoutQuotes(sentence.text, quoteOpen);
    quoteOpen = said.open;
    if (!said.text.trim()) continue;
    for (const found of matchSentence({ ...sentence, text: said.text }, sentences, speakers)) {
      const key = found.text
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, ' ')
        .trim();
      if (seen.has(key)) continue;
      seen.add(key);
      const by = speakers.nameOf(sentence.speaker);
      const assignee = found.assignee ?? (found.toYou ? lastOneLeft(by, sentence.segmentIndex) : undefined);
      // The same request said twice ("interact more with Christine … you need to interact with Christine"):
      // one item, where it was first said.
      const words = new Set(contentWords(tokenize(found.text)));
      const again = kept.find(
        (k) => k.assignee === assignee && k.words.size >= 2 && overlap(k.words, words) >= 0.6,
      );
      if (again) {
        // Keep the more specific wording ("… on user acceptability and testing" over "… and discuss with her").
        if (words.size > again.words.size && words.size <= 2 * again.words.size) {
          items[again.at] = { ...items[again.at]!, text: found.text };
          again.words = words;
        }
        continue;
      }
      kept.push({ assignee, words, at: items.length });
      const due = resolveDueDate(sentence.text, recordedAt);
      if (assignee && assignee !== by) given.push({ by, to: assignee, segment: sentence.segmentIndex });
      items.push({
        text: found.text,
        ...(assignee ? { assignee } : {}),
        ...(due ? { due } : {}),
      });
    }
  }
  return items;

  /**
   * "The I_D_ does the look and feel, the U_I_D_ the interface … and you're gonna do product evaluation": when
   * the same speaker has just given work to at least two others (within the last few turns), an unnamed "you"
   * is the one participant still without any, if exactly one is left.
   */
  function lastOneLeft(by: string, segment: number): string | undefined {
    const recent = new Set(given.filter((g) => g.by === by && segment - g.segment <= 4).map((g) => g.to));
    if (recent.size < 2) return undefined;
    const left = (speakers.names ?? []).filter((name) => name !== by && !recent.has(name));
    return left.length === 1 ? left[0] : undefined;
  }
}

/** Shared words over the smaller of two word sets. */
function overlap(a: Set<string>, b: Set<string>): number {
  if (!a.size || !b.size) return 0;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / Math.min(a.size, b.size);
}

/**
 * The sentence without what it quotes: reported speech ("he's like \"I can bring it over\"") is nobody's
 * commitment here. A quote may open in one sentence of a turn and close in a later one.
 */
function withoutQuotes(text: string, open: boolean): { text: string; open: boolean } {
  if (!text.includes('"')) return { text: open ? '' : text, open };
  const parts = text.split('"');
  // Even parts are outside the quotes when none is open at the start, odd parts when one is.
  const kept = parts.filter((_, i) => (i % 2 === 0) !== open);
  return {
    text: kept.join(' ').replace(/\s+/g, ' ').trim(),
    open: (parts.length - 1) % 2 === 1 ? !open : open,
  };
}

/** Clauses of a sentence that can each hold a task: "…, and I'll send …", "…; you have to …". */
function clausesOf(text: string): string[] {
  return text
    .split(
      /;\s+|,\s+but\s+(?=(?:can|could|would|will|do|does|is|are|shall|should)\s+(?:i|we|you)\b)|,?\s+and then\s+(?=(?:i|we|you)\b)|,?\s+and\s+(?=(?:i|we)(?:'ll| will)\b)|(?:,\s+(?:and\s+)?|\s+and\s+)(?=you (?:have|need) to\b)|,\s+(?:and\s+|in fact\s+|so\s+)?(?=you (?:two|both|guys)\b)/i,
    )
    .map((c) => c.trim())
    .filter(Boolean);
}

function matchSentence(sentence: Sentence, all: readonly Sentence[], speakers: SpeakerDirectory): Match[] {
  const speaker = speakers.nameOf(sentence.speaker);
  const explicit = EXPLICIT.exec(sentence.text);
  if (explicit) {
    // "action item for Maria: …", "Maria's action item is to …" name the owner.
    const owner = explicit[1] ?? explicit[2];
    const ownerName = owner ? (resolveAddressee(owner, speakers) ?? personalName(owner)) : undefined;
    if (ownerName) return [toMatch(explicit[3]!, ownerName, { allowAnyVerb: true })].filter(isMatch);
    // "action item: I'll send the deck" still names its owner; "action item: update the docs" names none.
    const inner = matchClause(explicit[3]!, sentence, all, speakers, speaker, {
      last: true,
      question: false,
    });
    return inner.length ? inner : [toMatch(explicit[3]!, undefined, { allowAnyVerb: true })].filter(isMatch);
  }
  const question = sentence.text.endsWith('?');
  const clauses = clausesOf(sentence.text);
  const out: Match[] = [];
  clauses.forEach((clause, i) => {
    out.push(
      ...matchClause(clause, sentence, all, speakers, speaker, {
        last: i === clauses.length - 1,
        // "We might need to drop you a line, but can I thank you?": only the last clause is asked.
        question: question && i === clauses.length - 1,
      }),
    );
  });
  return out;
}

function isMatch(m: Match | undefined): m is Match {
  return !!m;
}

function matchClause(
  text: string,
  sentence: Sentence,
  all: readonly Sentence[],
  speakers: SpeakerDirectory,
  speaker: string,
  where: { last: boolean; question: boolean },
): Match[] {
  if (IN_MEETING.test(text)) return [];
  const one = (m: Match | undefined) => (m ? [m] : []);

  const job = OWNED_JOB.exec(text);
  const jobOwner = job ? (resolveAddressee(job[1]!, speakers) ?? personalName(job[1]!)) : undefined;
  if (job && jobOwner) return one(toMatch(job[2]!, jobOwner));

  const passive = PASSIVE_SEND.exec(text);
  if (passive) return one(toMatch(`send ${passive[1]}`, undefined));

  const asked = ASK_TO.exec(text);
  if (asked && !/^you\b/i.test(asked[1]!.trim())) {
    const who = resolveAddressee(asked[1]!, speakers);
    if (who) return one(toMatch(asked[2]!, who, { requester: speaker }));
  }

  // Two people, or "you two": the task has no single owner.
  const plural = PLURAL.exec(text);
  if (plural && isPerson(plural[1]!, speakers) && isPerson(plural[2]!, speakers)) {
    // "Adam and Don will meet": two people meeting after this one is a follow-up of its own.
    const meet = /^(?:(?:sort of|kind of|probably|also|then|just)\s+)*meet\b(.*)$/i.exec(plural[3]!.trim());
    const found = meet
      ? toMatch(`${plural[1]!.trim()} and ${plural[2]!.trim()} meet${meet[1]}`, undefined, {
          allowAnyVerb: true,
        })
      : toMatch(plural[3]!, undefined);
    if (found) return [found];
  }
  const youPlural = YOU_PLURAL.exec(text);
  if (youPlural) {
    // "you two are on plasticine duty": the work is a noun, not a verb.
    const onDuty = /\bare (?:on|in charge of|responsible for)\s*$/i.test(
      youPlural[0].slice(0, -youPlural[1]!.length),
    );
    const found = toMatch(youPlural[1]!, undefined, { allowAnyVerb: onDuty });
    if (found) return [found];
  }

  const named = NAME_THEN_REQUEST.exec(text) ?? REQUEST_COMMA_NAME.exec(text);
  const addressed = named ? nameIn(named[1]!) : undefined;
  if (named && addressed) {
    const who = speakers.resolve(addressed) ?? resolveAddressee(addressed, speakers) ?? addressed;
    return withGapped(named[2]!, who, speakers, { requester: speaker });
  }

  const request =
    REQUEST.exec(text) ??
    ASSIGNMENT.exec(text) ??
    MAKE_SURE_YOU.exec(text) ??
    WANT_YOU.exec(text) ??
    PLEASE.exec(text);
  if (request && !(where.question ? false : isGenericYou(text, request))) {
    // "can you send the notes, Maria?": the addressee closes the sentence.
    const trailing = /,\s*(\p{Lu}[\p{L}'-]+)\s*[?.!]*$/u.exec(request[1]!);
    const trailingName = trailing ? nameIn(trailing[1]!) : undefined;
    // "… meet with, Hynek": after a preposition the name is the object, not the addressee.
    const objectOf =
      trailing &&
      /\b(?:with|to|for|from|about|at|on|by|and|or)\s*$/i.test(request[1]!.slice(0, trailing.index));
    if (trailing && trailingName && !objectOf) {
      const body = request[1]!.slice(0, trailing.index);
      return one(toMatch(body, speakers.resolve(trailingName) ?? trailingName, { requester: speaker }));
    }
    // Several assignments in one turn go to several people: the reply only answers the last one.
    const before = sentence.text.slice(0, Math.max(0, sentence.text.indexOf(text) + request.index));
    const who =
      topicBefore(before, sentence, all, speakers) ??
      (where.last ? (responder(sentence, all, speakers) ?? partner(sentence, all, speakers)) : undefined);
    const found = toMatch(request[1]!, who, { requester: speaker });
    return one(found && !who && /\byou\b/i.test(request[0]) ? { ...found, toYou: true } : found);
  }

  const volunteer = VOLUNTEER.exec(text);
  if (volunteer && where.question) {
    const found = toMatch(volunteer[1]!, responder(sentence, all, speakers, VOLUNTEERED));
    if (found) return [found];
  }

  // "I will tr getting information, I'll try and forward it": the first promise that names work.
  for (const self of [...firstMatches(text, SELF), ...[LET_ME_GET_BACK.exec(text)].filter((m) => !!m)]) {
    // "highlights that I can tell someone": a relative clause describes, it does not commit.
    if (RELATIVE_BEFORE.test(text.slice(0, self.index))) continue;
    const found = toMatch(self[1]!, speaker);
    if (found) return [found];
  }
  // A question that is not a request asks about the task, it does not set it.
  if (where.question) return [];

  const third = THIRD_PERSON.exec(text);
  if (third) {
    const marker = third[2]!;
    const resolved = resolveAddressee(third[1]!, speakers);
    // "Maria is preparing the budget" only with a known speaker; "Maria to send …" not with any capitalised word.
    const progressive = marker === 'is' || marker === "'s";
    const who = progressive
      ? /^\w+ing\b/.test(third[3]!)
        ? resolved
        : undefined
      : (resolved ?? personalName(third[1]!));
    if (who) {
      const found = withGapped(third[3]!, who, speakers);
      if (found.length) return found;
    }
  }
  const lower = THIRD_PERSON_LOWER.exec(text);
  if (lower) {
    // The subject is the shortest run of words before the verb that names a speaker ("and then marketing").
    const words = lower[1]!.split(/\s+/);
    const who = words
      .map((_, i) => resolveAddressee(words.slice(words.length - 1 - i).join(' '), speakers))
      .find(Boolean);
    if (who) {
      const found = withGapped(lower[2]!, who, speakers);
      if (found.length) return found;
    }
  }
  const given = GIVEN_TO.exec(text);
  if (given) {
    const phrase = given[1] ?? given[5]!;
    const work = (given[3] ?? given[4]!).trim();
    const who = resolveAddressee(phrase, speakers) ?? personalName(phrase);
    // "gets the design" hands out work only when it names work; "is responsible for …" always does.
    const strong = given[2] !== undefined && /responsible|charge|care|handl/.test(given[2]);
    if (who && who !== speaker && (strong || endsWithWork(work))) {
      const verb = /care/.test(given[2] ?? '')
        ? 'take care of '
        : /handl/.test(given[2] ?? '')
          ? 'handle '
          : '';
      const found = toMatch(`${verb}${work}`, who, { allowAnyVerb: true });
      if (found) return [found];
    }
  }
  const youGet = YOU_GET.exec(text);
  if (youGet && endsWithWork(youGet[1]!)) {
    const found = toMatch(youGet[1]!, undefined, { allowAnyVerb: true });
    if (found) return [{ ...found, toYou: true }];
  }
  const roleFor: Match[] = [];
  for (const m of firstMatches(text, ROLE_FOR)) {
    const [phrase, work] = m[1] !== undefined ? [m[1], m[2]!] : [m[3]!, m[4]!];
    if (!endsWithWork(work)) continue;
    const words = phrase.split(/\s+/);
    const who = words
      .map((_, i) => resolveAddressee(words.slice(words.length - 1 - i).join(' '), speakers))
      .find(Boolean);
    if (!who || who === speaker) continue;
    const found = toMatch(work, who, { allowAnyVerb: true });
    if (found) roleFor.push(found);
  }
  if (roleFor.length) return roleFor;
  const workFor = WORK_FOR.exec(text);
  if (workFor && endsWithWork(workFor[1]!)) {
    const who = resolveAddressee(workFor[2]!, speakers);
    if (who && who !== speaker) {
      const found = toMatch(workFor[1]!, who, { allowAnyVerb: true });
      if (found) return [found];
    }
  }
  const elliptical = ELLIPTICAL.exec(text);
  if (elliptical && endsWithWork(elliptical[2]!)) {
    const who = resolveAddressee(elliptical[1]!, speakers);
    if (who && who !== speaker) {
      const found = toMatch(elliptical[2]!, who, { allowAnyVerb: true });
      if (found) return [found];
    }
  }

  const plan = PLAN.exec(text);
  if (plan && !IN_MEETING.test(plan[3]!)) {
    const mine = (plan[1] ?? plan[2] ?? '').toLowerCase();
    const found = toMatch(plan[3]!, mine === 'i' || mine === 'my' ? speaker : undefined);
    if (found) return [found];
  }
  const decide = DECIDE.exec(text);
  if (decide) return one(toMatch(`decide ${decide[1]}`, undefined));
  // "let's go with the round one, let's explore a two-piece": the first trigger that introduces a task.
  for (const team of firstMatches(text, TEAM)) {
    const found = toMatch(team[1]!, undefined);
    if (found) return [found];
  }
  for (const anyone of firstMatches(text, ANYONE)) {
    const found = toMatch(anyone[1]!, undefined);
    if (found) return [found];
  }
  // "we'll write to you about …" is a follow-up whenever it is said; other plans only when said to be for later.
  const later = LATER.test(sentence.text);
  for (const plan of firstMatches(text, TEAM_WILL)) {
    if (!later && !FOLLOW_UP.test(plan[1]!)) continue;
    const found = toMatch(plan[1]!, undefined);
    if (found) return [found];
  }
  const imperative = IMPERATIVE.exec(text);
  if (imperative && IMPERATIVE_VERBS.test(imperative[1]!)) return one(toMatch(imperative[1]!, undefined));
  return [];
}

/**
 * At most this many triggers of one kind are tried in a clause. Each looks at the rest of the clause, so trying
 * every one of a long run ("I'll I'll I'll …") would take time quadratic in its length.
 */
const MAX_TRIGGERS = 20;

function* firstMatches(text: string, pattern: RegExp): Generator<RegExpExecArray> {
  let count = 0;
  for (const m of text.matchAll(pattern)) {
    yield m;
    if (++count >= MAX_TRIGGERS) return;
  }
}

/** A noun phrase for a piece of work: "the technical functions design", "the figures for the report" (not "the
 * budget numbers look off", which says something about the work). */
function endsWithWork(phrase: string): boolean {
  const words = phrase.trim().split(/\s+/);
  return words.length <= 8 && WORK_NOUN.test(words[words.length - 1]!);
}

/** A phrase that names a person: a known speaker, or a capitalised first name. */
function isPerson(phrase: string, speakers: SpeakerDirectory): boolean {
  return !!(resolveAddressee(phrase, speakers) ?? personalName(phrase));
}

/**
 * "You can find them easily" after "when …" or "so that …" is anyone at all, not an assignment; so is "you
 * can't …, you can select …", someone explaining how a thing works.
 */
function isGenericYou(clause: string, request: RegExpExecArray): boolean {
  if (!/\byou\s+(?:can|could)\s*$/i.test(request[0].slice(0, request[0].length - request[1]!.length)))
    return false;
  const before = clause.slice(0, request.index + Math.max(0, request[0].search(/\byou\b/i)));
  return (
    /\b(?:when|whenever|if|so that|once|where|then|because|'cause)\b/i.test(before) ||
    /\bcan't\b|\b(?:if|when|whenever) you\b/i.test(clause)
  );
}

// "A will do X, the B Y": a list of assignments that says its verb once.
const GAP = new RegExp(String.raw`,\s*(?:and\s+)?(?:[Tt]he\s+)?${PHRASE},?\s+((?:the|a|an|some)\s.+)$`, 'u');

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

/** The verb of a task, with its particle: "Work on the design" → "work on". */
function verbOf(task: string): string {
  return (/^(\S+(?:\s(?:on|up|out|into|at|about|with|for))?)\s/i.exec(task)?.[1] ?? '').toLowerCase();
}

/** A request without a name goes to whoever answers it with "sure", "will do", … in the next turn. */
function responder(
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
function partner(
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
/** Short replies of others that do not interrupt a speaker's train of thought ("Mm-hmm.", "Okay."). */
const SHORT_REPLY =
  /^(?:\W*(?:mm+-?hmm+|uh-huh|hmm+|mm+|um+|uh+|oh|ah|right|okay|ok|yeah|yes|yep|sure|alright|i see|'kay)\W*)+$/i;

/** The last person named as a topic in a text, other than the speaker. */
function lastMention(text: string, speakers: SpeakerDirectory, speaker: string): string | undefined {
  let found: string | undefined;
  for (const m of text.matchAll(MENTION)) {
    const who = resolveAddressee(m[1]!, speakers);
    if (who && who !== speaker) found = who;
  }
  return found;
}

/**
 * Whom an unnamed "you're going to …" is said to: a person named earlier in the sentence ("And for Marketing,
 * which is Bob, you are going to …") or in the speaker's previous sentence or two ("The I_D_, which is who?
 * Okay, you're going to …"), past other people's "mm-hmm".
 */
function topicBefore(
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
      if (SHORT_REPLY.test(earlier.text)) continue;
      return undefined;
    }
    own++;
    const who = lastMention(earlier.text, speakers, speaker);
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
  return name && /^\p{Lu}[\p{Ll}'-]+$/u.test(name) && !/ing$/.test(name) ? name : undefined;
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
  const verb = (lower.split(/\s+/)[0] ?? '').replace(/[,;:]$/, '');
  if (!TASK_VERBS.has(verb)) return false;
  const complement = NEEDS_COMPLEMENT[verb];
  return complement ? complement.test(lower) : true;
}

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

/** Turns the clause after the trigger into an item: "send the deck by Friday" → "Send the deck by Friday". */
function toMatch(
  clause: string,
  assignee: string | undefined,
  options: { requester?: string; allowAnyVerb?: boolean } = {},
): Match | undefined {
  let text = clause
    // "think s through this": a word cut off after its first letter.
    .replace(/(?:^|\s)(?![aAiIoO]\s)[b-zB-Z](?=\s)|\s*@(?:\s*@)*/g, '')
    .replace(/\s+(?:because|since|so that|'cause|cause)\s.*$/i, '')
    .replace(/,\s+(?:if|but)\s.*$|,?\s+(?:unless|whenever)\s.*$/i, '')
    .replace(/[.!?]\s.*$/, '')
    .replace(SPOKEN_TAG, '')
    .replace(/[.!?;:,\s]+$/, '');
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
