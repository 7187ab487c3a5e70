/**
 * The features the relevance model reads for one note of one query (rank.ts computes them). Each says something
 * the absolute cosine does not: how far the note stands out from the rest of the space, by meaning and by words.
 */
export const RELEVANCE_FEATURES = [
  /** Best passage cosine with the query. */
  'vector',
  /** That cosine above the note's length-raised semantic line (a long note's best passage is close by chance). */
  'lineExcess',
  /** Standout of the cosine from the next notes, in standard deviations (capped). */
  'zVector',
  /** Cosine minus the best cosine of any other note: how far the top is ahead (negative below the top). */
  'gapNext',
  /** Fused score minus the best other note's, over the best fused score: how far the top leads the ranking. */
  'scoreGap',
  /** Rarity-weighted share of the query's terms the note's best passage holds. */
  'coverage',
  /** Keyword standout scaled by coverage. */
  'zKeyword',
  /** Share of the query's word pairs held side by side. */
  'phrase',
  /** 1 for a query of a few words as typed (a sentence model's cosine is low for those whatever the topic). */
  'keywordQuery',
] as const;

export type RelevanceFeature = (typeof RELEVANCE_FEATURES)[number];

/**
 * A logistic function of the features, fitted by bench/search-quality/relevance-fit.ts on author-disjoint folds.
 * Not the default: on authors it was not fitted on it cut false alarms but lost more right first results than the
 * goals allow, and it could not keep the paraphrase promise of API.md (docs/quality.md, decision 73); rankNotes
 * takes one for that measurement.
 */
export interface RelevanceModel {
  features: readonly RelevanceFeature[];
  weights: readonly number[];
  bias: number;
  /**
   * Meaning alone (no shared words) makes a note relevant when its best cosine stands out (z ≥ semanticZ) and
   * passes rank.ts's length-raised semantic line by at least this much.
   */
  meaningMargin: number;
  /** What the weights were fitted on (the author sets, and how). */
  tunedOn: string;
}

/** The model's probability that the note answers the query. */
export function modelRelevance(model: RelevanceModel, f: Readonly<Record<RelevanceFeature, number>>): number {
  let x = model.bias;
  model.features.forEach((name, i) => {
    x += model.weights[i]! * f[name];
  });
  return 1 / (1 + Math.exp(-x));
}
