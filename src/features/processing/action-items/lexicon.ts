/**
 * The words of the action-item rules: which verbs are work, which replies take work on, which words are nobody's
 * name, what is meeting talk. Rules (`rules.ts`) and task normalisation (`task-text.ts`) read these; adding a
 * word here changes every rule that uses the list. Every pattern is linear-time on any input: no quantified
 * group contains another quantifier over the same characters (see the hardening tests).
 */

/**
 * Verbs of work done after a meeting: what people commit to, ask for and assign. A clause whose verb is not one
 * of these ("we should have a rubber case", "I'll put two", "let's take lunch") is a preference, a rating or
 * meeting talk, not a task. Multi-word entries match as a phrase.
 */
export const TASK_VERBS = new Set(
  (
    'send email e-mail mail forward circulate share distribute upload post write type draft prepare compile ' +
    'summarise summarize document update revise edit fix finish complete finalise finalize submit deliver book ' +
    'schedule arrange organise organize plan coordinate contact phone ask tell inform remind invite notify ' +
    'follow check verify confirm find research investigate explore study examine analyse analyze review assess ' +
    'test measure calculate estimate compare build create design develop implement code program gather collect ' +
    'bring buy order purchase decide choose pick select save record transcribe label annotate run rerun train ' +
    'install print sign approve reply respond provide renew cancel hire interview clean fill set sort put ' +
    'evaluate handle chase call copy keep figure get circle drop pass communicate interact liaise discuss meet draw push enter hand think work look try talk speak reach come do make have take ' +
    // Work done after a meeting that needs its complement (below): "read the paper", "mention it to the
    // transcribers", "fit the pieces together", "see whether …". A wider list of work verbs (start, give, change,
    // sell, specify, …) was tried: 4 right items and 45 wrong ones on the training sets.
    'read mention report agree see help fit start'
  ).split(' '),
);
/** Verbs above that need a particle or an object to be a task: "work on …", "look into …", "make a …". */
export const NEEDS_COMPLEMENT: Record<string, RegExp> = {
  set: /^set up\b/,
  sort: /^sort out\b/,
  clean: /^clean up\b/,
  fill: /^fill (?:in|out)\b/,
  follow: /^follow up\b/,
  think: /^think (?:about|through)\b/,
  // "tell us how …", "I'll tell you": a question or talk in the meeting, not a task.
  tell: /^tell (?!us\b|me\b|you\b|them\b|it\b|it's\b)/,
  remind: /^remind (?:(?:me|us) to\b|(?!me\b|us\b))/,
  work: /^work (?:(?:more|harder|further|a bit more|a little more)\s+)?(?:on|out|together (?:on|with|to (?!reach\b|achieve\b|meet\b|get there\b)))\b/,
  look: /^(?:look (?:into|at|up|for|and see (?:what|whether|if|how))|look more into)\b/,
  try: /^try (?:out\b|(?:a|an|the|some|different|other|new|more|several|these|those) \w)/,
  talk: /^talk to\b/,
  interact: /^interact (?:more )?with\b/,
  liaise: /^liaise with\b/,
  // "discuss it with Maria" is for later; "discuss the budget" is what a meeting does.
  discuss: /^discuss (?:(?:[\w'-]+ ){0,4})?with (?!us\b|everyone\b|everybody\b|the group\b)\S/,
  mention: /^mention (?:[\w'-]+ ){0,4}to\b/,
  report: /^report (?:back|on|to)\b/,
  agree: /^agree (?:on|upon)\b/,
  see: /^see (?:about\b|(?:if|whether) (?:we|you|they|he|she|someone|somebody) (?:can|could)\b)/,
  help: /^help (?:[\w'-]+ )?(?:with|to|out)\b/,
  fit: /^fit (?:[\w'-]+ ){1,4}(?:together|in|into)\b/,
  // "start recording them next week", "start the recruiting"; "start with the first point" is the meeting's order.
  start: /^start (?:the )?\w+ing\b/,
  read: /^read (?!(?:the |our |my |your |some )?(?:digits|numbers|strings?)\b)/,
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
  // "keep watching the trends", "keep track of the costs": work that goes on after the meeting.
  keep: /^keep (?:on )?(?:[a-z]+ing\b|track of\b|an eye on\b|in touch with\b)/,
  // "copy Jane on the note": send her a copy.
  copy: /^copy (?!(?:it|that|this|them)\b)\S+ (?:on|in)\b/,
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
export const IMPERATIVE_VERBS =
  /^(?:check(?: out)?|send|email|e-mail|mail|forward|book|schedule|contact|prepare|draft|write up|type up|draw up|update|fix|review|fill (?:in|out)|sign|submit|reply to|remind|print|order|buy|renew|cancel|confirm|complete|finali[sz]e|circulate|distribute|post|come up with|find out|follow up|look into)\b/i;
/** Talk about the meeting itself, happening now: not work for later. */
export const IN_MEETING =
  /\b(?:right now|at the moment|in this meeting|during this meeting|this slide|next slide|first present|share (?:my|the|your) screen|\b(?:do|give|start|begin|continue) (?:my|our|the|this) presentation\b|in the chat|in a (?:moment|minute|second|sec)\b|share my time|your (?:audio|mic|microphone|headset|camera|video)\b|(?:we|i)(?:'ll| will)? (?:then|first|now)\b)/i;
/** First words that show the clause is not an instruction ("I will not…", "we should, uh, maybe…"). */
export const NOT_AN_INSTRUCTION =
  /^(?:not|never|no|could|would|should|can|will|might|must|so|that|this|it|there|what|which|and|but|or|if|when|because|all|the|a|an|to|of|in|on|for|with|at|as|you|we|they|he|she|i|always|still|just say)\b/i;
/** Words before the verb that say nothing about the task ("just", "go ahead and", "by next week"). */
export const LEADING_FILLER =
  /^(?:(?:for sure|please|just|also|probably|definitely|certainly|quickly|then|actually|really|go ahead and|go and|try and|try to|make sure to|maybe|perhaps|have to|need to|has to|needs to|got to|gotta|sort of|kind of|uh|um|all|first|also|still|now|be|again|eventually|soon|then|(?:before|by|after|until|for) (?:the )?(?:next (?:week|meeting|time|session)|tomorrow|(?:mon|tues|wednes|thurs|fri)day|the end of the \w+))[\s,]+)+/i;
/** Words after the task that are speech, not task ("…, okay?", "… as well", "… if you can"); whole words only
 * ("the notebook" keeps its "ok", "an espresso" its "so"). */
export const SPOKEN_TAG =
  /(?:,?\s*\b(?:okay|ok|right|yeah|please|then|too|as well|if possible|if you can|thanks|maybe|perhaps|alright|eh|yes|I think|I guess|as usual|so|or whatever|or something|or anything)\b)+[?.!]*$/i;
/** A reply that answers a request ("sure", "will do", "I can"). */
export const ACKNOWLEDGEMENT =
  /^(?:\w{1,2}\s+)?(?:sure|yes|yeah|yep|ok|okay|will do|on it|absolutely|of course|no problem|definitely|sounds good|got it|i can|i will|i'll|alright|all right|'kay|kay|fine)\b/i;
/** A reply that takes a task on, not just listens ("yeah, absolutely", "sure", "I can"). */
export const STRONG_ACKNOWLEDGEMENT =
  /^(?:(?:yeah|yes|okay|ok)[,.!\s]+)?(?:sure|yes|absolutely|will do|of course|definitely|no problem|i can|i will|i'll)\b/i;
/** Answers to "who's going to …?" that take the task on ("I can", "me"); a plain "yes" does not. */
export const VOLUNTEERED =
  /^(?:(?:sure|yeah|yes|okay|ok|alright)[,.!\s]+)?(?:i will|i'll|i can|i could|me|i'm happy to|i'd be happy to|let me|i'm on it|i'll take)\b/i;
/** Listening noises: a third person's "mm-hmm" during a request is not an answer to it. */
export const BACKCHANNEL = /^(?:mm+-?hmm+|uh-huh|hmm+|mm+|um+|uh+|oh|ah|right)\W*$/i;

/**
 * Whether `text` is made only of what `unit` matches (at least once), the units run together or between
 * characters that are not word characters (\W): what `^(?:\W*(?:unit)\W*)+$` says, scanned once from left to
 * right. That pattern can split "mm-hmm mm-hmm …" (mm, -, hmm or mm-hmm) or "mmmm" in many ways and backtracks
 * exponentially when the text ends in something else: ten "mm-hmm"s before an "I agree" took half a minute.
 *
 * `unit` is sticky (`y`) and lists its alternatives so that taking the first one that matches at each point
 * decides as the pattern does: a longer word before its prefix ("okay" before "ok", "uh-huh" before "uh+"), and
 * runs of one letter (mm+, uh+) that end where any split of them would.
 */
export function madeOf(unit: RegExp, text: string): boolean {
  let units = 0;
  for (let i = 0; i < text.length; ) {
    unit.lastIndex = i;
    const match = unit.exec(text);
    if (match?.[0]) {
      units++;
      i += match[0].length;
    } else if (/\W/.test(text[i]!)) i++;
    else return false;
  }
  return units > 0;
}

/** Listening sounds, for `madeOf`: "mm-hmm", "uh-huh", "hmm", "um", "oh". */
export const LISTENING_SOUND_UNIT = /uh-huh|mm+|hmm+|um+|uh+|oh|ah/iy;
/** Short replies of others that do not interrupt a speaker's train of thought ("Mm-hmm.", "Okay."), for `madeOf`. */
export const SHORT_REPLY_UNIT =
  /uh-huh|'kay|alright|okay|ok|yeah|yes|yep|sure|right|i see|mm+|hmm+|um+|uh+|oh|ah/iy;
/** Capitalised words that open sentences but are nobody's name. */
export const NOT_A_NAME = new Set(
  (
    'so and but also okay ok well yes yeah then now anyway alright right hey hi listen look sorry please actually ' +
    'honestly great thanks everyone guys team folks i we you they he she it this that these those there here ' +
    'what which who the a an my our your their his her maybe perhaps just mr mrs ms chair minister government ' +
    'canada wales members everybody anybody someone somebody nobody something when if where while because as ' +
    'once since after before unless whether how why can could would will shall should may might must do does ' +
    "did are is was were have has had let like wherever whoever whatever whenever however i'm i'll i've i'd " +
    "we're we'll we've you're you'll it's that's there's or nor yet for with to of in on at by from need"
  ).split(' '),
);
/** What is handed out as work when no verb says so: "the technical design", "the minutes", "the budget report". */
export const WORK_NOUN =
  /\b(?:duty|design|report|specs?|specifications?|evaluation|functions|requirements|prototype|presentation|minutes|agenda|summary|analysis|draft|proposal|plan|slides|deck|budget|review|research|study|survey|documentation|docs|notes|contract|schedule|booking|paperwork|model|mock-?up|demo|tests?|testing|experiments?|write-?up|paper|figures|transcripts?|estimate|quote|catering|logistics|invit(?:es?|ations?)|website|code|implementation|layout|components)\b/i;
/**
 * What a meeting does while it meets: a team's "we need to decide / think about / look at / come up with …" is
 * usually the discussion itself (on the training windows the rules were not written from, "we need to / have to /
 * should / let's …" gave 82 items, 8 right).
 */
export const DELIBERATION =
  /^(?:decide|choose|pick|select|think|agree|consider|discuss|figure|find|look|design|make sure|come up with|do|work out|determine|talk(?! to\b| with\b)|go through|see)\b/i;
/** Words that put a plan after the meeting ("next week", "later", "by Friday", "offline"). */
export const LATER =
  /\b(?:next (?:meeting|time|week|month|session)|for the next|before the next|by the next|after (?:the|this) meeting|later|tomorrow|by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|the end)|in the meantime|meantime|afterwards|offline|off-line)\b/i;
/** Follow-ups to people outside the meeting: a task whenever they are promised. */
export const FOLLOW_UP =
  /^(?:(?:also|then|certainly|definitely|of course)[,\s]+)*(?:write to|send|e-?mail|follow up|get back to|circulate|forward|drop (?:\w+ ){1,2}a (?:line|note))\b/i;
/** A relative clause just before a promise ("… that I can tell …"): it describes, it does not commit. */
export const RELATIVE_BEFORE = /\b(?:that|which|who|what|how|where|if|whether|than|as)\s*$/i;

// Patterns that capture a name are case-sensitive (a name is capitalised), so they spell out both cases.
export const NAME = String.raw`(\p{Lu}[\p{L}'-]+(?:\s\p{Lu}[\p{L}'-]+)?)`;
/** A role or name phrase: "Industrial Designer", "User Interf Interface Designer", "I_D_", "the PM". */
// One to four words, each after exactly one space: a word is never split into pieces (that was exponential).
export const PHRASE = String.raw`(\p{Lu}[\p{L}_'-]*(?:\s\p{Lu}[\p{L}_'-]*){0,3}\s?)`;
/**
 * Where a name may start when no word or mark before it bounds it: at the start of a word, or after a short
 * lower-case particle joined by a hyphen or apostrophe ("al-Rashid", "d'Artagnan" give "Rashid", "Artagnan", as
 * `\b` did). Not after any letter: `\b` is ASCII-only, so inside a word like "x-B-x-B-…" or "bÀbÀ…" it let a name
 * start at every capital and run to the word's end, quadratic in the word; here each word offers at most two starts.
 */
export const NAME_START = String.raw`(?:(?<![\p{L}_'-])|(?<=(?<![\p{L}_'-])\p{Ll}{1,4}['-]))`;
/** "you're going to", "you'll need to", "you should", or a plain "you", after a name. */
export const YOU_WILL = String.raw`(?:you(?:'re| are)\s+(?:going to|gonna)|you(?:'ll| will)(?:\s+(?:need|have) to)?|you\s+(?:need|have|ought) to|you\s+(?:should|must|can|could)|you)`;
/** "can you", "would you". */
export const ASK = String.raw`(?:[Cc]an|[Cc]ould|[Ww]ould|[Ww]ill)\s+you`;
