import type { Sentence } from '../sentences.ts';
import { LISTENING_SOUND_UNIT, madeOf } from './lexicon.ts';

/**
 * Features of a sentence for the learned action-item detector: what it says (words and word pairs), how it sits
 * in the conversation (who speaks before and after, question and answer) and its modal and person cues. Sparse
 * features are names, hashed into a fixed number of buckets by the model; dense features (a sentence vector of
 * a sentence model, when one is loaded) are passed beside them. Changing what is extracted here means a new
 * `FEATURES_VERSION` and retraining (`npm run train:action-items`).
 *
 * Every pattern here is a list of literal alternatives: linear in the length of the sentence.
 */
export const FEATURES_VERSION = 2;

/** Modal and person cues: who is to act, how firmly, and when. */
const CUES: readonly (readonly [string, RegExp])[] = [
  ['self_will', /\b(?:i'll|i will|i'm going to|i am going to|i'm gonna|i shall)\b/],
  ['self_must', /\b(?:i have to|i need to|i've got to|i must|i should|i ought to|i'd better)\b/],
  ['self_offer', /\b(?:i can|i could|let me|i'd be happy to|i'm happy to|i'll try)\b/],
  ['we_will', /\b(?:we'll|we will|we're going to|we're gonna|we are going to)\b/],
  ['we_must', /\b(?:we need to|we have to|we've got to|we must|we should|we ought to|we'd better)\b/],
  ['lets', /\b(?:let's|let us|shall we)\b/],
  ['you_will', /\b(?:you'll|you will|you're going to|you're gonna|you are going to)\b/],
  ['you_must', /\b(?:you need to|you have to|you've got to|you must|you should)\b/],
  ['ask', /\b(?:can you|could you|would you|will you|would you mind|if you could)\b/],
  ['want_you', /\b(?:want you to|like you to|need you to|make sure|don't forget|remember to|be sure to)\b/],
  ['please', /\bplease\b/],
  ['third_will', /\b(?:he'll|she'll|they'll|he will|she will|they will|is going to|is gonna)\b/],
  ['someone', /\b(?:someone|somebody|anyone|anybody|whoever|who's going to|who will|who wants to)\b/],
  ['explicit', /\b(?:action items?|to-?dos?|next steps?|homework|assignment)\b/],
  [
    'later',
    /\b(?:next (?:meeting|time|week|month|session)|tomorrow|later|afterwards|after the meeting|in the meantime|before the next|by the next|by (?:monday|tuesday|wednesday|thursday|friday)|end of the week|offline)\b/,
  ],
  ['now', /\b(?:right now|this slide|next slide|in a minute|at the moment|today)\b/],
  ['past', /\b(?:did|was|were|had|i've done|we've done|last time|last week|yesterday)\b/],
  ['hedge', /\b(?:maybe|perhaps|probably|might|i guess|i suppose|i don't know|i dunno)\b/],
  ['if', /\b(?:if|whether|unless)\b/],
  ['opinion', /\b(?:i think|i like|i prefer|it should be|it would be|i feel)\b/],
  ['decide', /\b(?:decide|decision|agree on|figure out)\b/],
  ['find_out', /\b(?:find out|look into|check|get back to|follow up|look at)\b/],
  ['send', /\b(?:send|email|e-mail|mail|forward|circulate|write up|report back)\b/],
  ['work_on', /\b(?:work on|working on|be working|take care of|responsible for|in charge of)\b/],
];

/**
 * Words that make a word pair say who acts and how ("you need", "need to", "i'll send"): only pairs with one of
 * them are features. All pairs were tried: with a few thousand sentences they overfit (ROC AUC 0.878 against
 * 0.890 without any pairs, each set held out in turn).
 */
const PIVOTS = new Set(
  (
    "i i'll i'm i'd we we'll we're let's you you'll you're <name> he she they will would can could should " +
    'must need needs have has got going gonna want wants like try to please someone somebody anyone who'
  ).split(' '),
);

/**
 * The verb after a promise, request or plan ("I'll send", "can you check", "we need to decide", "I'm gonna
 * show"): what is promised says more than that something is.
 */
const AFTER_CUE =
  /\b(?:i'll|i will|i'm going to|i'm gonna|i have to|i need to|i can|let me|we'll|we will|we're going to|we're gonna|we need to|we have to|we should|let's|you'll|you will|you're going to|you're gonna|you need to|you have to|you should|can you|could you|would you|please|will|going to|gonna|have to|need to|should)\s+(?:(?:just|also|probably|maybe|then|first|still|be|try and|try to)\s+)?([a-z][a-z'-]*)/g;

/** Short replies that take something on or just listen. */
const ACCEPT =
  /^(?:\W*(?:yes|yeah|yep|sure|okay|ok|alright|right|will do|of course|absolutely|fine|no problem)\b)/;

/**
 * What the model is told about the transcript beyond the sentences: the speakers' names, to spot addressing.
 * Which rules fired was tried as a feature and left out: it raised the held-out-in-turn ROC AUC (0.895 → 0.915)
 * only because the rules were written from most of those sets; on windows they were not written from it made
 * the detector trust the rules' mistakes (precision of kept rule items 71 % → 33 % at the same threshold).
 */
export interface FeatureContext {
  /** Display names and labels of the speakers ("Maria Lopez", "Industrial Designer", "Grad E"). */
  names: readonly string[];
}

/** Lower-cased words of the speakers' names ("maria", "lopez", "industrial", "designer"), for `<name>`. */
export function nameWords(names: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const name of names) {
    for (const word of name.toLowerCase().split(/[\s_.]+/)) if (word.length >= 3) out.add(word);
  }
  return out;
}

const bucket = (n: number, edges: readonly number[]) => {
  let i = 0;
  while (i < edges.length && n > edges[i]!) i++;
  return i;
};

/**
 * The sparse features of every sentence, in order. Speakers' names become `<name>` and numbers `<num>`, so
 * that "Maria, can you …" and "Bob, can you …" look alike.
 */
export function sentenceFeatures(sentences: readonly Sentence[], context: FeatureContext): string[][] {
  const names = nameWords(context.names);
  // Per turn: its sentences and its speaker, to look at the turns before and after.
  const turns: { speaker: string; first: number; last: number }[] = [];
  for (const s of sentences) {
    const last = turns[turns.length - 1];
    if (last && sentences[last.last]!.segmentIndex === s.segmentIndex) last.last = s.index;
    else turns.push({ speaker: s.speaker, first: s.index, last: s.index });
  }
  const turnOf = new Array<number>(sentences.length);
  turns.forEach((t, i) => {
    for (let j = t.first; j <= t.last; j++) turnOf[j] = i;
  });
  // The speaker who says the most: the chair or project manager who hands out work.
  const said = new Map<string, number>();
  for (const s of sentences) said.set(s.speaker, (said.get(s.speaker) ?? 0) + s.words.length);
  const top = [...said.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];

  const words = (s: Sentence) =>
    s.words.map((w) => (names.has(w) ? '<name>' : /^\d+$/.test(w) ? '<num>' : w));
  /** The nearest turn by someone else before (step -1) or after (+1) turn `t`, skipping the speaker's own. */
  const otherTurn = (t: number, step: number) => {
    for (let i = t + step, seen = 0; i >= 0 && i < turns.length && seen < 3; i += step, seen++) {
      if (turns[i]!.speaker !== turns[t]!.speaker) return turns[i];
    }
    return undefined;
  };

  return sentences.map((s) => {
    const f = new Set<string>(['bias']);
    const w = words(s);
    const lower = s.text.toLowerCase();
    for (let i = 0; i < w.length; i++) {
      f.add(`w:${w[i]}`);
      if (i + 1 < w.length && (PIVOTS.has(w[i]!) || PIVOTS.has(w[i + 1]!))) f.add(`b:${w[i]} ${w[i + 1]}`);
      if (i < 3) f.add(`s${i}:${w[i]}`);
    }
    if (w.length) f.add(`end:${w[w.length - 1]}`);
    for (const [name, pattern] of CUES) if (pattern.test(lower)) f.add(`cue:${name}`);
    let verbs = 0;
    for (const m of lower.matchAll(AFTER_CUE)) {
      f.add(`v:${m[1]}`);
      if (++verbs >= 5) break;
    }
    if (w.includes('<name>')) f.add('mention');
    if (/^\p{Lu}[\p{L}'-]+,/u.test(s.text) && names.has(s.text.split(',')[0]!.toLowerCase()))
      f.add('addressed');
    const question = /\?\s*$/.test(s.text);
    if (question) f.add('question');
    f.add(`len:${bucket(w.length, [3, 8, 20, 35])}`);

    // Where the sentence sits in its turn (first, last, turn size) was tried and left out: it did not help.
    const t = turnOf[s.index]!;
    if (s.speaker === top) f.add('top_speaker');

    const before = otherTurn(t, -1);
    if (before) {
      const last = sentences[before.last]!;
      if (/\?\s*$/.test(last.text)) f.add('prev_question');
      const first = words(sentences[before.first]!)[0];
      if (first) f.add(`p0:${first}`);
    }
    const after = otherTurn(t, 1);
    if (after) {
      const reply = sentences[after.first]!;
      const text = reply.text.toLowerCase();
      const rw = words(reply);
      if (rw[0]) f.add(`n0:${rw[0]}`);
      if (rw[1]) f.add(`n1:${rw[0]} ${rw[1]}`);
      if (madeOf(LISTENING_SOUND_UNIT, text)) f.add('next_backchannel');
      else if (ACCEPT.test(text)) f.add('next_accept');
      if (after.last === after.first && rw.length <= 3) f.add('next_short');
    }
    return [...f];
  });
}
