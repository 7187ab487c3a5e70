import type { Deps } from '../../deps.ts';
import type { AnalyzedQuery } from './query.ts';
import { type Space, searchRepo } from './search.repo.ts';

/** Document frequencies are counted exactly up to this; beyond, estimated (search.repo.ts). */
const DF_EXACT_LIMIT = 300;
/** Note occurrences of the terms that retrieve keyword candidates (see retrievalTerms). */
const RETRIEVAL_BUDGET = 2_000;
/**
 * A term is rare in at most 2 % of the space's notes; in a small space, also in up to 3 notes that are at most
 * a tenth of them (2 of 25 notes, 3 of 30). Always in one note.
 */
const RARE_SHARE = 0.02;
const SMALL_SPACE_RARE_NOTES = 3;
const SMALL_SPACE_RARE_SHARE = 0.1;
/** Total term weight (IDF) a query needs for full coverage: about that of one word in a third of the notes. */
export const MIN_QUERY_WEIGHT = 1;

/** What the space says about the query's terms. */
export interface TermWeights {
  /** Notes of the space (at least the largest document frequency seen). */
  spaceSize: number;
  /** Notes holding each term (exact up to a cap, estimated beyond). */
  df: Map<string, number>;
  /** IDF × query weight, by stem. */
  weights: Map<string, number>;
  totalWeight: number;
  /** Content terms in few enough notes to count as rare (the rare-term floor). */
  rareTerms: string[];
  /** Share of the query's term weight that its rare terms carry (0 without rare terms). */
  rareShare: number;
}

/** Step 1, weights: the rarity of the query's terms in this space (retrieval terms, coverage, rare terms). */
export async function weighTerms(deps: Deps, space: Space, query: AnalyzedQuery): Promise<TermWeights> {
  // Cached for a few seconds: a note processed since then still counts (below), or its terms would weigh < 0.
  let spaceSize = await deps.search.notesInSpace(space);
  const rareLimit = Math.max(
    1,
    Math.floor(RARE_SHARE * spaceSize),
    Math.min(SMALL_SPACE_RARE_NOTES, Math.floor(SMALL_SPACE_RARE_SHARE * spaceSize)),
  );
  const df = query.terms.length
    ? await searchRepo.documentFrequencies(
        deps.db,
        deps.dialect,
        space,
        query.terms.map((term, i) => ({ term, stem: query.stems[i]! })),
        Math.max(rareLimit + 1, Math.min(DF_EXACT_LIMIT, Math.ceil(0.2 * spaceSize))),
        spaceSize,
        await deps.search.commonLexemes(),
      )
    : new Map<string, number>();
  spaceSize = Math.max(spaceSize, ...df.values());
  const weights = new Map<string, number>();
  query.terms.forEach((term, i) => {
    const d = df.get(term) ?? 0;
    const idf = Math.log(1 + (spaceSize - d + 0.5) / (d + 0.5));
    const s = query.stems[i]!;
    weights.set(s, Math.max(weights.get(s) ?? 0, idf * query.weight[i]!));
  });
  const totalWeight = [...weights.values()].reduce((a, b) => a + b, 0);
  const rare = query.terms.map((t, i) => query.content[i]! && (df.get(t) ?? 0) <= rareLimit);
  const rareTerms = query.terms.filter((_, i) => rare[i]);
  let rareWeight = 0;
  for (const s of new Set(query.stems.filter((_, i) => rare[i]))) rareWeight += weights.get(s) ?? 0;
  const rareShare = totalWeight > 0 ? rareWeight / totalWeight : 0;
  return { spaceSize, df, weights, totalWeight, rareTerms, rareShare };
}

/**
 * The terms that retrieve keyword candidates: all of them while their matches stay few, else the rarest ones
 * within a budget of note occurrences (a frequent word's matches would be scanned and scored for little: it
 * still counts in coverage and snippets). At least the two rarest terms that occur at all; when even those
 * exceed the budget, chunks must hold both (AND), which keeps a query of common words fast and precise.
 */
export function retrievalTerms(
  query: AnalyzedQuery,
  df: ReadonlyMap<string, number>,
  spaceSize: number,
): { terms: string[]; all: boolean } {
  const present = query.terms.filter((t) => (df.get(t) ?? 0) > 0);
  const budget = Math.max(RETRIEVAL_BUDGET, 0.25 * spaceSize);
  const byRarity = [...present].sort((a, b) => df.get(a)! - df.get(b)!);
  const chosen: string[] = [];
  let used = 0;
  for (const term of byRarity) {
    const d = df.get(term)!;
    if (chosen.length >= 2 && used + d > budget) break;
    chosen.push(term);
    used += d;
  }
  return { terms: chosen, all: chosen.length > 1 && used > budget };
}
