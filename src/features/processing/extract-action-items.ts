import type { SpeakerDirectory } from './action-items/addressee.ts';
import { detectedTask } from './action-items/detected-task.ts';
import { type Detector, defaultDetector } from './action-items/detector.ts';
import { DELIBERATION, LATER } from './action-items/lexicon.ts';
import { matchSentence } from './action-items/rules.ts';
import { scenarioOwner, scenarioRound } from './action-items/scenario-roles.ts';
import { isTask, type Match, toMatch, verbOf, withoutQuotes } from './action-items/task-text.ts';
import { resolveDueDate } from './resolve-due-date.ts';
import { contentWords, type Sentence, tokenize } from './sentences.ts';

export { resolveAddressee, type SpeakerDirectory } from './action-items/addressee.ts';

export interface ExtractedActionItem {
  text: string;
  assignee?: string;
  /** `YYYY-MM-DD`. */
  due?: string;
}

/**
 * Rules that hand work to someone by name or role ("Maria, can you …", "I'll ask Bob to …", "the Industrial
 * Designer is going to …"), or say "action item:": the detector never overrules them. They are rarely wrong on
 * meetings the rules were not written from (on the six training sets 18 right, 2 wrong, both a word taken for a
 * name), and the vector weights, trained on disfluent speech, score a plain "Maria, can you send the deck?" near
 * 0.03.
 */
const NAMED_RULES = new Set(['explicit', 'owned-job', 'ask-someone-to', 'name-then-request', 'third-person']);
/** Commitments: overruled only below their own, lower threshold (see `committed`). */
const COMMITTED_RULES = new Set(['promise', 'promise-to-get-back']);

export interface ExtractOptions {
  /**
   * The learned detector that judges which sentences carry a task (default: the shipped weights); `null` runs the
   * rules alone. A rule's item is kept when its sentence scores at least the weights' `keepThreshold`; a
   * sentence no rule matched still yields an item (worded by `detected-task.ts`) at `addThreshold`.
   */
  detector?: Detector | null;
  /** Probabilities per sentence computed elsewhere (evaluation with held-out models); they replace `detector`. */
  scores?: readonly number[];
  /** Thresholds instead of the weights' own (for choosing them). */
  thresholds?: { keep: number; add: number; keepCommitted?: number };
  /**
   * Sentence vectors for the detector, when a sentence model is loaded; in sentence order, undefined for a
   * sentence not embedded (the analyzer embeds only `sentencesToEmbed`). With them the detector's vector weights
   * and thresholds judge every sentence; without, its words-only ones.
   */
  vectors?: readonly (ArrayLike<number> | undefined)[];
}

/**
 * The sentences worth a sentence vector, by index: those a rule found a task in and, when the vector weights ever
 * add items of their own, those the words-only detector scores at or above its `embedThreshold` (the others can
 * yield no item whatever their vector says). Empty without a detector that has vector weights.
 */
export function sentencesToEmbed(
  sentences: readonly Sentence[],
  speakers: SpeakerDirectory,
  detector: Detector | null = defaultDetector(),
): number[] {
  if (!detector?.vectorWeights) return [];
  const candidates = ruleCandidates(sentences, speakers);
  const scores =
    detector.vectorWeights.addThreshold <= 1
      ? detector.score(sentences, { names: speakers.names ?? [] })
      : undefined;
  const embedAt = Math.min(
    detector.weights.embedThreshold ?? detector.weights.addThreshold,
    detector.weights.addThreshold,
  );
  return sentences
    .filter((s) => candidates[s.index]!.found.length > 0 || (scores && scores[s.index]! >= embedAt))
    .map((s) => s.index);
}

/**
 * Finds commitments, requests and assignments: "I'll send the deck" (the speaker), "Maria, can you book the
 * room by Friday" (Maria, due that Friday), "I'll ask the designer to draft it" (the designer), "you're going to
 * work on the components" (whoever accepts), "we need to decide X", "action item: …". The rules
 * (`action-items/rules.ts`) word the task and find its assignee; the learned detector (`action-items/detector.ts`)
 * decides which sentences carry one. In transcript order, no duplicates.
 */
export function extractActionItems(
  sentences: readonly Sentence[],
  speakers: SpeakerDirectory,
  recordedAt: string,
  options: ExtractOptions = {},
): ExtractedActionItem[] {
  const detector = options.detector === undefined ? defaultDetector() : options.detector;
  const candidates = ruleCandidates(sentences, speakers);
  // With vectors (of `sentencesToEmbed`), every sentence is judged by the vector weights: one not embedded can
  // yield no item (no rule matched it and the words-only detector ranks it too low).
  const withVectors = !!(options.vectors && detector?.vectorWeights);
  const scores =
    options.scores ??
    detector
      ?.score(sentences, { names: speakers.names ?? [] }, options.vectors)
      .map((p, i) => (withVectors && !options.vectors?.[i] ? 0 : p));
  // A commitment (see `committed`) is overruled only below `keepCommitted` (0: never), and never with a due date.
  const {
    keep: keepAt,
    add: addAt,
    keepCommitted = 0,
  } = options.thresholds ?? detector?.thresholds(withVectors) ?? { keep: 0, add: Number.POSITIVE_INFINITY };
  const items: ExtractedActionItem[] = [];
  const seen = new Set<string>();
  /** Who was given work, by whom and in which turn: for "… and you get product evaluation". */
  const given: { by: string; to: string; segment: number }[] = [];
  const kept: { assignee?: string; words: Set<string>; at: number }[] = [];
  for (const sentence of sentences) {
    const { spoken } = candidates[sentence.index]!;
    let { found } = candidates[sentence.index]!;
    const p = scores?.[sentence.index];
    if (spoken && p !== undefined) {
      if (found.length && p < keepAt)
        found = found.filter(
          (m) => named(m) || (committed(m, sentence) && (p >= keepCommitted || dated(sentence))),
        );
      else if (!found.length && p >= addAt)
        found = [detectedTask(spoken, sentences, speakers)].filter((m) => !!m);
    }
    for (const match of found) for (const part of roundOf(match)) record(part, sentence);
  }
  return items;

  /**
   * A task said as a commitment, judged only below the commitment threshold (`keepCommitted`; words-only
   * weights: never): work handed out by name (`named`, never judged), a promise of the speaker's own ("I'll send
   * …"), a team's work elsewhere ("we need to send …", `teamTask`), or anything with a due date (never dropped).
   * The detector, trained on disfluent meeting speech, scores such plain sentences low; the looser forms (team
   * plans, the meeting's own deliberation, unnamed "you", imperatives, work named for a role) are where the rules
   * go wrong on meetings they were not written from (decisions 32, 37, 43, 45).
   */
  function committed(m: Match, sentence: Sentence): boolean {
    return named(m) || COMMITTED_RULES.has(m.rule ?? 'explicit') || teamTask(m, sentence) || dated(sentence);
  }

  /**
   * "We need to send the contract", "let's schedule a follow-up": the team's work elsewhere is a commitment;
   * "we need to decide on the case", "we have to think about the shape" is the meeting deliberating, judged as the
   * looser forms are, unless it is put after the meeting ("… next time").
   */
  function teamTask(m: Match, sentence: Sentence): boolean {
    return m.rule === 'team-must' && (!DELIBERATION.test(m.text) || LATER.test(sentence.text));
  }

  function named(m: Match): boolean {
    return NAMED_RULES.has(m.rule ?? 'explicit');
  }

  function dated(sentence: Sentence): boolean {
    return resolveDueDate(sentence.text, recordedAt) !== undefined;
  }

  /**
   * A list of AMI work that belongs to different roles ("do the components concept, supposed to work on the user
   * interface concept"): one item per role, each to its owner (`scenarioRound`); a later part without a task verb
   * takes the first part's ("do the look and feel design, the user interface design").
   */
  function roundOf(match: Match): Match[] {
    const round = scenarioRound(match.text, speakers);
    if (!round) return [match];
    const verb = verbOf(match.text);
    return round.flatMap(({ text, owner }, i) => {
      const part = toMatch(text.replace(/^(?:supposed|going|gonna|have|need)\s+to\s+/i, ''), owner, {
        allowAnyVerb: true,
      });
      if (!part) return [];
      const the = /^(?:the|a|an|some|your|my|our|their)\s/i.test(text) ? '' : 'the ';
      const worded = i > 0 && !isTask(part.text) && verb ? `${verb} ${the}${text}` : part.text;
      return [{ ...match, ...part, text: worded.charAt(0).toUpperCase() + worded.slice(1), assignee: owner }];
    });
  }

  /** Adds an item unless it repeats one already kept. */
  function record(found: Match, sentence: Sentence) {
    const key = found.text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
    if (seen.has(key)) return;
    seen.add(key);
    const by = speakers.nameOf(sentence.speaker);
    // An unnamed "you": the role whose work the task names in the AMI scenario (over a guess from who answered),
    // else the one left without work.
    const assignee = found.toYou
      ? (scenarioOwner(found.text, speakers, by) ?? lastOneLeft(by, sentence.segmentIndex))
      : found.guessed
        ? (scenarioOwner(found.text, speakers, by) ?? found.assignee)
        : found.assignee;
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
      return;
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
 * What the rules find in each sentence, as said (without what it quotes: reported speech, "he's like \"I can
 * bring it over\"", is nobody's commitment here; a quote may open in one sentence of a turn and close in a
 * later one). `spoken` is undefined for a sentence that is all quote.
 */
export function ruleCandidates(
  sentences: readonly Sentence[],
  speakers: SpeakerDirectory,
): { spoken?: Sentence; found: Match[] }[] {
  let quoteOpen = false;
  return sentences.map((sentence) => {
    if (sentence.index === 0 || sentences[sentence.index - 1]!.segmentIndex !== sentence.segmentIndex)
      quoteOpen = false;
    const said = withoutQuotes(sentence.text, quoteOpen);
    quoteOpen = said.open;
    if (!said.text.trim()) return { found: [] };
    const spoken = { ...sentence, text: said.text };
    return { spoken, found: matchSentence(spoken, sentences, speakers) };
  });
}
