import { QUESTION_WORDS, STOPWORDS, stem, words } from '../search/text/tokens.ts';
import {
  LOCATOR_WEIGHTS,
  type LocatorInput,
  type LocatorWeights,
  largest,
  pool,
  turnRelevance,
} from './locator.ts';
import { type AskSegment, splitTurn, type TurnSentence } from './transcript-sentences.ts';

/** A note handed to the answerer: its turns, in order. */
export interface AskNote {
  id: string;
  title: string;
  created_at: string;
  segments: AskSegment[];
  /**
   * How close in meaning the question is to each transcript passage of the note (search's sentence model), by
   * the passage's start; the locator weighs it with the words the question shares with each turn.
   */
  passages?: { start_ms: number; similarity: number }[] | undefined;
}

export interface Citation {
  note_id: string;
  title: string;
  created_at: string;
  quote: string;
  speaker?: string;
  start_ms?: number;
  end_ms?: number;
}

export interface Answer {
  answered: boolean;
  answer: string;
  citations: Citation[];
  /**
   * Where the answer was found, most relevant first: turn ranges (inclusive) of the notes, around the chosen
   * sentences and the located centres. A language model is shown these passages only.
   */
  passages?: Passage[];
}

/** Turns `from`..`to` (inclusive) of one note. */
export interface Passage {
  note_id: string;
  from: number;
  to: number;
}

/** Turns shown around a chosen sentence, and around a located centre, to a language model. */
const SENTENCE_CONTEXT = 2;
const CENTRE_CONTEXT = 6;

export interface ExtractiveOptions {
  maxCitations: number;
  /** Words the answer aims at: enough to answer, short enough to read. */
  wordBudget: number;
  /** Turns each side of a turn whose learned relevance is pooled to find where a topic is discussed. */
  locatorRadius: number;
  /** Turns each side of a located centre from which sentences may be taken. */
  spanRadius: number;
  /** A second passage is used when its pooled score is at least this share of the best one's. */
  secondPassage: number;
  /** Least pooled score, as a share of the best, of the turn a sentence is taken from. */
  passageFloor: number;
  /** Weight of the passages' closeness in meaning added to the located relevance (scaled to 1 at best). */
  semanticWeight: number;
  /** Shortest sentence (in words) that can stand alone in an answer. */
  minWords: number;
  /** Weight of the sentence's own match against that of the passage around it. */
  lexicalWeight: number;
  /** Bonus for a sentence said by the person the question names. */
  speakerBonus: number;
  /** Share of the question's term weight the best sentence must hold for the notes to answer it. */
  minCoverage: number;
  /** Word overlap (Jaccard) above which a sentence repeats one already chosen. */
  redundancy: number;
  /** Least share of the question's term weight a sentence must hold itself (0: its passage may carry it). */
  minSentenceCoverage: number;
  /** Whether an answer sentence starts with who said it. */
  speakerPrefix: boolean;
  /** The locator's weights (the shipped ones unless a trial gives others). */
  locatorWeights?: LocatorWeights;
}

export const DEFAULT_EXTRACTIVE: ExtractiveOptions = {
  maxCitations: 8,
  wordBudget: 80,
  locatorRadius: 6,
  spanRadius: 14,
  secondPassage: 0.8,
  passageFloor: 0,
  semanticWeight: 2,
  minWords: 6,
  lexicalWeight: 0.6,
  speakerBonus: 0.25,
  minCoverage: 0.05,
  minSentenceCoverage: 0.01,
  redundancy: 0.5,
  speakerPrefix: true,
};

/** The one-sentence answer when the notes hold nothing that answers. */
export const NOTHING_RELEVANT = 'The notes hold nothing that answers this question.';

/** Words that make a question about time: the newest notes come first. */
const TIME_WORDS = new Set([
  'latest',
  'last',
  'recent',
  'recently',
  'newest',
  'lately',
  'current',
  'currently',
]);

export function isTimeQuestion(question: string): boolean {
  return words(question).some((w) => TIME_WORDS.has(w));
}

interface Candidate {
  note: number;
  sentence: TurnSentence;
  score: number;
  coverage: number;
}

/**
 * The query-focused extractive answer: for each note, the passages that discuss the question are located
 * (turn scores pooled over neighbouring turns), then the sentences that best answer it are chosen without
 * repeating each other, up to a word budget, and cited verbatim. Notes are given best first; the answer keeps
 * them in that order (newest first for a question about time) and each note's sentences in spoken order.
 * Pure and CPU-bound: it runs in a processing thread.
 */
export function answerExtractively(
  question: string,
  notes: readonly AskNote[],
  options: ExtractiveOptions = DEFAULT_EXTRACTIVE,
): Answer {
  const query = questionTerms(question);
  const nothing: Answer = { answered: false, answer: NOTHING_RELEVANT, citations: [] };
  if (!query.terms.length || !notes.length) return nothing;

  const perNote = notes.map(sentencesOf);
  const idf = inverseFrequencies(query.terms, perNote);
  const totalWeight = query.terms.reduce((sum, t) => sum + idf.get(t)!, 0);
  const summary = isSummaryQuestion(question);

  const candidates: Candidate[] = [];
  const located: { note: number; centre: number }[] = [];
  notes.forEach((note, n) => {
    const turns = perNote[n]!;
    const named = namedSpeakers(query.words, note.segments);
    const input = locatorInput(note, turns, named, idf, summary);
    if (!input.turnTerms.some((t) => query.terms.some((q) => t.includes(q)))) return;
    const relevance = pool(
      turnRelevance(input, options.locatorWeights ?? LOCATOR_WEIGHTS),
      options.locatorRadius,
    );
    const top = largest(relevance);
    const pooled = relevance.map((v, i) => v / top + options.semanticWeight * (input.meaning[i] ?? 0));
    const best = largest(pooled);
    const centres = locate(pooled, options.spanRadius, options.secondPassage);
    for (const centre of centres) located.push({ note: n, centre });
    // Notes later in the list count for less: search ranked them lower.
    const noteWeight = 1 / (1 + 0.15 * n);
    for (const sentences of turns) {
      for (const s of sentences) {
        if (s.wordCount < options.minWords) continue;
        if (!centres.some((c) => Math.abs(c - s.turn) <= options.spanRadius)) continue;
        if (pooled[s.turn]! < options.passageFloor * best) continue;
        const coverage = weightOf(new Set(s.terms), query.terms, idf) / totalWeight;
        if (coverage < options.minSentenceCoverage) continue;
        const speaker = note.segments[s.turn]?.speaker;
        const bonus = speaker && named.has(speaker) ? options.speakerBonus : 0;
        const score =
          noteWeight *
          (options.lexicalWeight * coverage + (1 - options.lexicalWeight) * (pooled[s.turn]! / best) + bonus);
        candidates.push({ note: n, sentence: s, score, coverage });
      }
    }
  });
  if (!candidates.length || largest(candidates.map((c) => c.coverage)) < options.minCoverage) return nothing;

  const chosen = choose(candidates, options);
  return {
    ...compose(notes, chosen, options, isTimeQuestion(question)),
    passages: passagesOf(notes, chosen, located),
  };
}

/** The chosen sentences' turns with their neighbours (best sentence first), then the located centres'. */
function passagesOf(
  notes: readonly AskNote[],
  chosen: readonly Candidate[],
  located: readonly { note: number; centre: number }[],
): Passage[] {
  const around = (n: number, turn: number, radius: number): Passage => ({
    note_id: notes[n]!.id,
    from: Math.max(0, turn - radius),
    to: Math.min(notes[n]!.segments.length - 1, turn + radius),
  });
  const answering = new Set(chosen.map((c) => c.note));
  return [
    ...chosen.map((c) => around(c.note, c.sentence.turn, SENTENCE_CONTEXT)),
    ...located.filter((l) => answering.has(l.note)).map((l) => around(l.note, l.centre, CENTRE_CONTEXT)),
  ];
}

/** What the learned locator is told of a note's turns for one question. */
function locatorInput(
  note: AskNote,
  turns: readonly TurnSentence[][],
  named: ReadonlySet<string>,
  idf: ReadonlyMap<string, number>,
  summary: boolean,
): LocatorInput {
  return {
    turnTerms: turns.map((sentences) => sentences.flatMap((s) => s.terms)),
    idf,
    meaning: meaningByTurn(note),
    named: note.segments.map((s) => s.speaker !== undefined && named.has(s.speaker)),
    wordCounts: turns.map((sentences) => sentences.reduce((sum, s) => sum + s.wordCount, 0)),
    summary,
  };
}

/** The locator's input for one note asked alone (what the locator is trained on). */
export function noteLocatorInput(question: string, note: AskNote): LocatorInput {
  const query = questionTerms(question);
  const turns = sentencesOf(note);
  const idf = inverseFrequencies(query.terms, [turns]);
  return locatorInput(
    note,
    turns,
    namedSpeakers(query.words, note.segments),
    idf,
    isSummaryQuestion(question),
  );
}

/** Words that ask for a discussion summed up rather than what one person said. */
const SUMMARY_WORDS = new Set(['summarize', 'summarise', 'summary', 'discuss', 'discussed', 'discussion']);

export function isSummaryQuestion(question: string): boolean {
  return words(question).some((w) => SUMMARY_WORDS.has(w));
}

/** A note's sentences by turn, split once per segment list (a benchmark asks one note many questions). */
const split = new WeakMap<readonly AskSegment[], TurnSentence[][]>();
function sentencesOf(note: AskNote): TurnSentence[][] {
  let turns = split.get(note.segments);
  if (!turns) {
    turns = note.segments.map((s, i) => splitTurn(s.text, i));
    split.set(note.segments, turns);
  }
  return turns;
}

/** The question's content words, stemmed, without the words that only say how it is asked. */
export function questionTerms(question: string): { terms: string[]; words: string[] } {
  const all = words(question);
  const content = all.filter((w) => !STOPWORDS.has(w) && !QUESTION_WORDS.has(w) && !TIME_WORDS.has(w));
  return { terms: [...new Set(content.map(stem))], words: all };
}

/** Inverse turn frequency of each query term over the notes' turns (BM25's form, never negative). */
function inverseFrequencies(
  terms: readonly string[],
  perNote: readonly TurnSentence[][][],
): Map<string, number> {
  const df = new Map(terms.map((t) => [t, 0]));
  let n = 0;
  for (const turns of perNote) {
    for (const sentences of turns) {
      n++;
      const seen = new Set(sentences.flatMap((s) => s.terms));
      for (const t of terms) if (seen.has(t)) df.set(t, df.get(t)! + 1);
    }
  }
  return new Map(terms.map((t) => [t, Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5))]));
}

function weightOf(
  present: ReadonlySet<string>,
  terms: readonly string[],
  idf: ReadonlyMap<string, number>,
): number {
  let w = 0;
  for (const t of terms) if (present.has(t)) w += idf.get(t)!;
  return w;
}

/**
 * Each turn's closeness in meaning to the question: that of the passage it falls in, scaled so the note's
 * closest passage is 1 and its farthest 0. Empty without passage similarities.
 */
function meaningByTurn(note: AskNote): number[] {
  const passages = [...(note.passages ?? [])].sort((a, b) => a.start_ms - b.start_ms);
  if (!passages.length) return [];
  const sims = passages.map((p) => p.similarity);
  let lo = Number.POSITIVE_INFINITY;
  for (const sim of sims) if (sim < lo) lo = sim;
  const span = largest(sims) - lo || 1;
  let p = 0;
  return note.segments.map((segment) => {
    const at = segment.start_ms ?? 0;
    while (p + 1 < passages.length && passages[p + 1]!.start_ms <= at) p++;
    return (passages[p]!.similarity - lo) / span;
  });
}

/** The best centre, and a second one apart from it when it scores nearly as well (a topic taken up again). */
function locate(pooled: readonly number[], spanRadius: number, secondShare: number): number[] {
  let first = 0;
  for (let i = 1; i < pooled.length; i++) if (pooled[i]! > pooled[first]!) first = i;
  let second = -1;
  for (let i = 0; i < pooled.length; i++) {
    if (Math.abs(i - first) <= 2 * spanRadius) continue;
    if (second < 0 || pooled[i]! > pooled[second]!) second = i;
  }
  return second >= 0 && pooled[second]! >= secondShare * pooled[first]! ? [first, second] : [first];
}

/** Speaker labels the question names ("What did the Professor think…", "What did Grad D say…"). */
function namedSpeakers(questionWords: readonly string[], segments: readonly AskSegment[]): Set<string> {
  const asked = ` ${questionWords.join(' ')} `;
  const named = new Set<string>();
  for (const s of segments) {
    if (!s.speaker || named.has(s.speaker)) continue;
    const label = words(s.speaker).join(' ');
    if (label && asked.includes(` ${label} `)) named.add(s.speaker);
  }
  return named;
}

/** Best sentences first, skipping those that repeat a chosen one, until the budget or the citation cap. */
function choose(candidates: Candidate[], options: ExtractiveOptions): Candidate[] {
  const sorted = [...candidates].sort((a, b) => b.score - a.score);
  const chosen: Candidate[] = [];
  let used = 0;
  for (const c of sorted) {
    if (used >= options.wordBudget || chosen.length >= options.maxCitations) break;
    const terms = new Set(c.sentence.terms);
    if (chosen.some((o) => jaccard(terms, o.sentence.terms) > options.redundancy)) continue;
    chosen.push(c);
    used += c.sentence.wordCount;
  }
  return chosen;
}

function jaccard(a: ReadonlySet<string>, b: readonly string[]): number {
  const bs = new Set(b);
  let both = 0;
  for (const t of bs) if (a.has(t)) both++;
  const union = a.size + bs.size - both;
  return union ? both / union : 0;
}

/** Groups by note (search order, or newest first), sentences in spoken order, one citation per sentence. */
function compose(
  notes: readonly AskNote[],
  chosen: Candidate[],
  options: ExtractiveOptions,
  byTime: boolean,
): Answer {
  const order = [...new Set(chosen.map((c) => c.note))];
  if (byTime) order.sort((a, b) => notes[b]!.created_at.localeCompare(notes[a]!.created_at));
  const parts: string[] = [];
  const citations: Citation[] = [];
  for (const n of order) {
    const note = notes[n]!;
    const mine = chosen
      .filter((c) => c.note === n)
      .sort((a, b) => a.sentence.turn - b.sentence.turn || a.sentence.start - b.sentence.start);
    for (const { sentence } of mine) {
      const segment = note.segments[sentence.turn]!;
      citations.push({
        note_id: note.id,
        title: note.title,
        created_at: note.created_at,
        quote: segment.text.slice(sentence.start, sentence.end),
        ...(segment.speaker ? { speaker: segment.speaker } : {}),
        ...(segment.start_ms !== undefined ? { start_ms: segment.start_ms } : {}),
        ...(segment.end_ms !== undefined ? { end_ms: segment.end_ms } : {}),
      });
      const prefix = options.speakerPrefix && segment.speaker ? `${segment.speaker}: ` : '';
      parts.push(`${prefix}${sentence.text} [${citations.length}]`);
    }
  }
  return { answered: true, answer: parts.join(' '), citations };
}
