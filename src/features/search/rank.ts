import { modelRelevance, type RelevanceFeature, type RelevanceModel } from './relevance-model.ts';

/**
 * Fusion and relevance: pure functions over what the keyword and vector indexes returned for one query, so the
 * quality benchmark can measure and tune exactly what the API runs (docs/quality.md).
 */

/** What the indexes said about one note for one query. */
export interface NoteEvidence {
  noteId: string;
  /** Keyword scores of the note's matching chunks (bm25 / ts_rank_cd; higher is better), best first. */
  keyword: number[];
  /** Best cosine similarity of one of its chunks to the query, when the vector index returned one. */
  vector?: number;
  /** How many of its chunks `vector` is the best of (with `vector`): the more, the higher a best cosine by chance. */
  passages?: number;
  /** Rarity-weighted share (0..1) of the query's terms that its best-matching chunk contains. */
  coverage: number;
  /**
   * Share (0..1) of the query's phrases (pairs of consecutive content words) that one of its best passages holds
   * side by side; for a query of one content word, its coverage.
   */
  phrase: number;
  /** The note contains every rare term of the query (and the query has one). */
  rareTermsPresent: boolean;
  /**
   * Share (0..1) of the query's term weight carried by its rare terms, the same for every note of a query: the
   * rare-term floor holds only when they carry enough of it (`rareMinShare`). Absent: 1 (they carry it all).
   */
  rareShare?: number;
  /** Words of the query as typed (separated by spaces; the same for every note); absent: a sentence. */
  queryWords?: number;
}

export interface RankParams {
  /** Chunks per note whose keyword scores add up (several good passages beat one). */
  keywordChunks: number;
  /** Weight of the (max-normalised) vector score against the (max-normalised) keyword score. */
  vectorWeight: number;
  /**
   * Extra vector weight when the keyword match is poor: vectorWeight + vectorBoost × (1 − best coverage of the
   * query). A paraphrase ("spending went over plan" for "the budget was exceeded") shares no rare word with
   * its note, so meaning must decide; a query whose words a note contains is decided by the words.
   */
  vectorBoost: number;
  /** How much the keyword score is scaled by coverage (0: not at all, 1: score × coverage). */
  rankCoverage: number;
  /** How much holding the query's phrases adds to the keyword score (score × (1 + rankPhrase × phrase)). */
  rankPhrase: number;
  /** Logistic calibration of relevance: intercept and weights of the features. */
  bias: number;
  wCoverage: number;
  wKeywordZ: number;
  wVectorZ: number;
  wPhrase: number;
  /** Notes compared against when judging how much one stands out. */
  peers: number;
  /** Relevance given to a note holding all of the query's rare words, at least (see `holdsRareWords`). */
  rareFloor: number;
  /**
   * In a query longer than a keyword query, the rare terms are the query's rare words only when they carry at
   * least this share of its weight: a long question with one word that happens to be in one note of the space
   * ("What did Marketing think of rubber material when discussing user requirements of the new remote
   * control?") is not a query for that word.
   */
  rareMinShare: number;
  /**
   * A query of at most this many words (as typed) is a keyword query ("Zanzibar vendor", "contractor
   * invoices"): its rare terms are its rare words whatever share of the weight they carry, and the veto does not
   * judge it. A sentence model's cosine between a few words and a passage that holds them is low whatever the
   * topic ("contractor invoices" 0.20 against a passage about them, "scroll wheel" 0.26; a question about the
   * same passage 0.5–0.66; docs/search.md), so it says nothing about a keyword
   * query's topic.
   */
  keywordQueryWords: number;
  /**
   * A note whose best chunk is at least `semanticMinCosine` similar to the query and stands out from the
   * others by `semanticZ` standard deviations is relevant by meaning alone (relevance ≥ 0.5).
   */
  semanticZ: number;
  semanticMinCosine: number;
  /**
   * The semantic line rises with the note's length: `semanticMinCosine + semanticPerLogPassage ×
   * ln(passages / linePassageBase)` (not below `semanticMinCosine`).
   * The best of many passages reaches a given cosine by chance far more often than the best of two (a
   * one-hour meeting has ~70 passages, and one of them is close to any question about meetings).
   */
  semanticPerLogPassage: number;
  /** Notes of at most this many passages keep the base lines; longer ones raise them by ln(passages / this). */
  linePassageBase: number;
  /**
   * Meaning alone decides relevance only for a query whose words the notes barely hold (best coverage at most
   * this): a paraphrase. When the words match, the keyword evidence decides (fitted on QMSum), and a long note
   * that is merely about meetings in general cannot pass the line by its best passage's cosine.
   */
  semanticMaxCoverage: number;
  /** Relevance added per unit of cosine above `semanticMinCosine` (at most 0.75 by meaning alone). */
  semanticSlope: number;
  /**
   * A note whose best chunk is less similar to the query than this is not about it, whatever words it shares:
   * its relevance stays below 0.5 (unless it holds the query's rare words). Applies only when vectors took
   * part; 0 turns it off.
   */
  vetoCosine: number;
  /** The veto line rises with the note's length as the semantic line does: `+ vetoPerLogPassage × ln(…)`. */
  vetoPerLogPassage: number;
}

/** Chosen on QMSum train (bench/search-quality/tune.ts); see docs/quality.md for how and what else was tried. */
export const DEFAULT_RANK_PARAMS: RankParams = {
  keywordChunks: 3,
  vectorWeight: 0.3,
  vectorBoost: 2,
  rankCoverage: 0.5,
  rankPhrase: 1,
  bias: -0.583,
  wCoverage: -1.474,
  wKeywordZ: 0.848,
  wVectorZ: 0,
  wPhrase: 1.107,
  peers: 20,
  rareFloor: 0.55,
  rareMinShare: 0.7,
  keywordQueryWords: 3,
  semanticZ: 2,
  semanticMinCosine: 0.3,
  semanticPerLogPassage: 0.12,
  linePassageBase: 5,
  semanticMaxCoverage: 0.5,
  semanticSlope: 1,
  vetoCosine: 0.25,
  vetoPerLogPassage: 0.065,
};

export interface RankedNote {
  noteId: string;
  /** Fused ranking score (per query, not comparable across queries). */
  score: number;
  relevance: number;
  features: Record<string, number>;
}

/**
 * Standing out by more than this counts as this: in a small space the notes without a match pad the peers with
 * zeros, and any match, however weak, would otherwise stand out without bound.
 */
const Z_CAP = 5;

/** Relevance of a note the vectors say is off the query's topic: just below the line. */
const VETOED = 0.49;
/** Relevance that meaning alone can give. */
const SEMANTIC_CAP = 0.75;

const sum = (a: readonly number[]) => a.reduce((x, y) => x + y, 0);
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** How far `value` stands above the others (z-score), with a floor on the spread so ties do not explode. */
function standout(value: number, others: readonly number[], floor: number): number {
  if (!others.length) return 0;
  const mean = sum(others) / others.length;
  const variance = sum(others.map((o) => (o - mean) ** 2)) / others.length;
  return (value - mean) / Math.max(Math.sqrt(variance), floor);
}

/**
 * Gives each note a fused score and a relevance in [0, 1], most relevant first:
 * - score: the note's best `keywordChunks` keyword scores summed, divided by the best such sum of the query,
 *   scaled by coverage (`rankCoverage`) and by the phrases it holds (`rankPhrase`), plus `vectorWeight` × its
 *   best chunk similarity divided by the query's best similarity.
 * - relevance: logistic(bias + wCoverage·coverage + wKeywordZ·z_keyword·coverage + wVectorZ·z_vector +
 *   wPhrase·phrase), where
 *   z_* says how far the note stands out from the next `peers` notes (notes without a match count as 0, so in
 *   a small space a match stands out; capped at 5), and the keyword standout counts as much as the note
 *   covers the query. Weights fitted by logistic regression on QMSum, intercept set so that 90 % of
 *   correct top-1 results reach 0.5 (docs/quality.md). Two floors hold whatever the fit says: `rareFloor`
 *   when the note holds the query's rare words (`holdsRareWords`), and 0.5+ for a clear semantic match; one
 *   ceiling, the veto: a sentence-like query's note whose best passage is below the (length-raised) veto line.
 * `spaceSize` is the number of notes searched, for the zero-padding of peers. A `model` (relevance-model.ts; not
 * the default, see docs/quality.md) replaces the fitted logistic and raises the line for meaning alone by its margin.
 */
export function rankNotes(
  evidence: readonly NoteEvidence[],
  spaceSize: number,
  params: RankParams = DEFAULT_RANK_PARAMS,
  model: RelevanceModel | null = null,
): RankedNote[] {
  const kw = evidence.map((e) => sum(e.keyword.slice(0, params.keywordChunks)));
  const vec = evidence.map((e) => Math.max(0, e.vector ?? 0));
  const maxKw = Math.max(0, ...kw);
  const maxVec = Math.max(0, ...vec);
  const bestCoverage = Math.max(0, ...evidence.map((e) => e.coverage));
  const vectorWeight = params.vectorWeight + params.vectorBoost * (1 - bestCoverage);
  const scores = evidence.map(
    (e, i) =>
      (maxKw > 0
        ? (kw[i]! / maxKw) *
          (1 - params.rankCoverage + params.rankCoverage * e.coverage) *
          (1 + params.rankPhrase * e.phrase)
        : 0) + (maxVec > 0 ? (vectorWeight * vec[i]!) / maxVec : 0),
  );
  const maxScore = Math.max(0, ...scores);
  const order = evidence
    .map((_, i) => i)
    .sort((a, b) => scores[b]! - scores[a]! || cmp(evidence[a]!.noteId, evidence[b]!.noteId));
  // At least one peer: a space of one note is judged like a space where the other note did not match.
  const peerCount = Math.min(params.peers, Math.max(1, spaceSize - 1));
  const kwSorted = [...kw].sort((a, b) => b - a);
  const vecSorted = [...vec].sort((a, b) => b - a);
  const peersOf = (sorted: number[], value: number) => {
    const rest = [...sorted];
    rest.splice(rest.indexOf(value), 1);
    const peers = rest.slice(0, peerCount);
    while (peers.length < peerCount) peers.push(0);
    return peers;
  };
  let ceiling = 1;
  const ranked = order.map((i) => {
    const e = evidence[i]!;
    const zKeyword = kw[i]! > 0 ? standout(kw[i]!, peersOf(kwSorted, kw[i]!), 0.05 * kw[i]!) : 0;
    const zVector = vec[i]! > 0 ? standout(vec[i]!, peersOf(vecSorted, vec[i]!), 0.05) : 0;
    const logPassages = Math.log(Math.max(1, (e.passages ?? 1) / params.linePassageBase));
    const line = params.semanticMinCosine + params.semanticPerLogPassage * logPassages;
    const otherBest = vecSorted[0] === vec[i] ? (vecSorted[1] ?? 0) : (vecSorted[0] ?? 0);
    const otherScore = order[0] === i ? (scores[order[1]!] ?? 0) : scores[order[0]!]!;
    const features: Record<RelevanceFeature | 'rare', number> = {
      coverage: e.coverage,
      zKeyword: Math.min(zKeyword, Z_CAP) * e.coverage,
      zVector: Math.min(zVector, Z_CAP),
      vector: vec[i]!,
      lineExcess: vec[i]! - line,
      gapNext: vec[i]! - otherBest,
      scoreGap: maxScore > 0 ? (scores[i]! - otherScore) / maxScore : 0,
      keywordQuery: isKeywordQuery(e, params) ? 1 : 0,
      rare: e.rareTermsPresent ? 1 : 0,
      phrase: e.phrase,
    };
    const fitted = model
      ? modelRelevance(model, features)
      : sigmoid(
          params.bias +
            params.wCoverage * features.coverage +
            params.wKeywordZ * features.zKeyword +
            params.wVectorZ * features.zVector +
            params.wPhrase * features.phrase,
        );
    // Down the fused order relevance never rises: a note ranked lower is not more likely relevant.
    ceiling = Math.min(ceiling, fitted);
    let relevance = ceiling;
    if (
      e.vector !== undefined &&
      !isKeywordQuery(e, params) &&
      vec[i]! < params.vetoCosine + params.vetoPerLogPassage * logPassages
    )
      relevance = Math.min(relevance, VETOED);
    // With the model, meaning alone decides only far above the line (a margin fitted with it): a clear paraphrase.
    const meaningLine = line + (model ? model.meaningMargin : 0);
    if (
      bestCoverage <= params.semanticMaxCoverage &&
      features.zVector >= params.semanticZ &&
      features.vector >= meaningLine
    ) {
      const bySense = 0.5 + params.semanticSlope * (features.vector - meaningLine);
      relevance = Math.max(relevance, Math.min(SEMANTIC_CAP, bySense));
    }
    if (holdsRareWords(e, params)) relevance = Math.max(relevance, params.rareFloor);
    return { noteId: e.noteId, score: scores[i]!, relevance, features };
  });
  // The API lists the most relevant first; the fused score breaks ties (and orders notes the floors lifted).
  return ranked
    .map((r, position) => ({ r, position }))
    .sort((a, b) => b.r.relevance - a.r.relevance || a.position - b.position)
    .map(({ r }) => r);
}

/**
 * Whether a note holds the query's rare words, the API's promise (a note that contains the query's rare words
 * verbatim scores ≥ 0.5): it holds every rare term of the query, and the query is a keyword query or its rare
 * terms carry at least `rareMinShare` of its weight.
 */
export function holdsRareWords(
  e: Pick<NoteEvidence, 'rareTermsPresent' | 'rareShare' | 'queryWords'>,
  params: Pick<RankParams, 'rareMinShare' | 'keywordQueryWords'> = DEFAULT_RANK_PARAMS,
): boolean {
  return e.rareTermsPresent && (isKeywordQuery(e, params) || (e.rareShare ?? 1) >= params.rareMinShare);
}

function isKeywordQuery(
  e: Pick<NoteEvidence, 'queryWords'>,
  params: Pick<RankParams, 'keywordQueryWords'>,
): boolean {
  return e.queryWords !== undefined && e.queryWords <= params.keywordQueryWords;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
