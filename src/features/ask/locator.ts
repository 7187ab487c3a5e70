import { createHash } from 'node:crypto';
import weightsFile from './locator-weights.json' with { type: 'json' };

/**
 * The learned locator: for each turn of a note, the probability that it lies in the passage that answers the
 * question, from a logistic model over what the answerer already measures per turn (shared words, their pooling
 * over neighbouring turns, the sentence model's closeness, the named speaker, position). Trained on QMSum's gold
 * relevant spans by `npx tsx bench/ask/train-locator.ts`.
 */

/** What is known of a note's turns for one question. */
export interface LocatorInput {
  /** Each turn's stemmed content words, once per occurrence. */
  turnTerms: readonly (readonly string[])[];
  /** The question's terms with their weight (inverse turn frequency). */
  idf: ReadonlyMap<string, number>;
  /** Each turn's closeness in meaning to the question, 0..1 within the note; empty without the sentence model. */
  meaning: readonly number[];
  /** Whether each turn was said by a speaker the question names. */
  named: readonly boolean[];
  /** Words in each turn. */
  wordCounts: readonly number[];
  /** Whether the question asks for a summary of a discussion rather than what someone said. */
  summary: boolean;
}

/** The features, in the order of the weights; a change of this list needs new weights. */
export const LOCATOR_FEATURES = [
  'lexical',
  'lexical_pool2',
  'lexical_pool6',
  'lexical_pool14',
  'coverage',
  'window_coverage6',
  'meaning',
  'meaning_pool6',
  'meaning_peak',
  'named_turn',
  'named_window3',
  'named_asked',
  'length',
  'position',
  'near_best',
  'summary_pool14',
  'window_coverage2',
  'window_coverage14',
  'density6',
  'lexical_x_meaning',
] as const;

export interface LocatorModel {
  bias: number;
  weights: number[];
}

export interface LocatorWeights {
  features: string[];
  /** Weights for notes with the sentence model's passage similarities, and for notes without. */
  withMeaning: LocatorModel;
  withoutMeaning: LocatorModel;
  /** What the weights were trained on, for the record. */
  trainedOn: string;
  /** sha256 of the JSON of the other fields, in this order: a weights file edited by hand does not load. */
  sha256: string;
}

/** The checksum a weights file carries: of its other fields, serialised in a fixed order. */
export function locatorChecksum(w: Omit<LocatorWeights, 'sha256'>): string {
  const body = JSON.stringify([w.features, w.withMeaning, w.withoutMeaning, w.trainedOn]);
  return createHash('sha256').update(body).digest('hex');
}

function verified(w: LocatorWeights): LocatorWeights {
  if (locatorChecksum(w) !== w.sha256) throw new Error('locator-weights.json does not match its checksum');
  if (w.features.join() !== LOCATOR_FEATURES.join())
    throw new Error('locator-weights.json was trained on other features');
  return w;
}

export const LOCATOR_WEIGHTS: LocatorWeights = verified(weightsFile as LocatorWeights);

/** Each turn's score plus its neighbours', weighed down linearly with distance (a triangular window). */
export function pool(scores: readonly number[], radius: number): number[] {
  return scores.map((_, i) => {
    let sum = 0;
    for (let d = -radius; d <= radius; d++) {
      const v = scores[i + d];
      if (v !== undefined) sum += v * (1 - Math.abs(d) / (radius + 1));
    }
    return sum;
  });
}

/** The largest of `xs` (at least `floor`), by a loop: spreading a note's turns into Math.max overflows the stack. */
export function largest(xs: readonly number[], floor = Number.NEGATIVE_INFINITY): number {
  let top = floor;
  for (const x of xs) if (x > top) top = x;
  return top;
}

const scaled = (xs: readonly number[]) => {
  const top = largest(xs, 0);
  return top > 0 ? xs.map((x) => x / top) : xs.map(() => 0);
};

function argmax(xs: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i]! > xs[best]!) best = i;
  return best;
}

/** Share of the question's weight held by the words of turns `from`..`to`. */
function windowWeight(
  sets: readonly ReadonlySet<string>[],
  idf: ReadonlyMap<string, number>,
  from: number,
  to: number,
  total: number,
): number {
  let w = 0;
  for (const [term, weight] of idf) {
    for (let t = Math.max(0, from); t <= Math.min(sets.length - 1, to); t++) {
      if (sets[t]!.has(term)) {
        w += weight;
        break;
      }
    }
  }
  return total > 0 ? w / total : 0;
}

/** One feature vector per turn, in `LOCATOR_FEATURES` order. */
export function locatorFeatures(input: LocatorInput): number[][] {
  const n = input.turnTerms.length;
  const total = [...input.idf.values()].reduce((a, b) => a + b, 0);
  const sets = input.turnTerms.map((terms) => new Set(terms));
  const lexical = sets.map((set) => {
    let w = 0;
    for (const [term, weight] of input.idf) if (set.has(term)) w += weight;
    return w;
  });
  // Every occurrence counts here: a passage that keeps returning to the question's words.
  const occurrences = input.turnTerms.map((terms) =>
    terms.reduce((w, term) => w + (input.idf.get(term) ?? 0), 0),
  );
  const density = scaled(pool(occurrences, 6));
  const lex = scaled(lexical);
  const lex2 = scaled(pool(lexical, 2));
  const lex6 = scaled(pool(lexical, 6));
  const lex14 = scaled(pool(lexical, 14));
  const meaning = input.meaning.length === n ? input.meaning : new Array<number>(n).fill(0);
  const meaning6 = scaled(pool(meaning, 6));
  const best = argmax(lex6.map((v, t) => v + 2 * meaning[t]!));
  const asked = input.named.some(Boolean);
  const longest = Math.log1p(200);
  return lex.map((l, t) => {
    let namedNear = 0;
    for (let d = -3; d <= 3; d++) if (input.named[t + d]) namedNear++;
    return [
      l,
      lex2[t]!,
      lex6[t]!,
      lex14[t]!,
      total > 0 ? lexical[t]! / total : 0,
      windowWeight(sets, input.idf, t - 6, t + 6, total),
      meaning[t]!,
      meaning6[t]!,
      meaning[t]! ** 4,
      input.named[t] ? 1 : 0,
      namedNear / 7,
      asked ? 1 : 0,
      Math.min(1, Math.log1p(input.wordCounts[t]!) / longest),
      n > 1 ? t / (n - 1) : 0,
      Math.exp(-Math.abs(t - best) / 10),
      input.summary ? lex14[t]! : 0,
      windowWeight(sets, input.idf, t - 2, t + 2, total),
      windowWeight(sets, input.idf, t - 14, t + 14, total),
      density[t]!,
      lex6[t]! * meaning6[t]!,
    ];
  });
}

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** Each turn's probability of lying in the answering passage, under the weights that fit the input. */
export function turnRelevance(input: LocatorInput, weights: LocatorWeights = LOCATOR_WEIGHTS): number[] {
  const model = input.meaning.length ? weights.withMeaning : weights.withoutMeaning;
  return locatorFeatures(input).map((f) => {
    let z = model.bias;
    for (let k = 0; k < f.length; k++) z += model.weights[k]! * f[k]!;
    return sigmoid(z);
  });
}
