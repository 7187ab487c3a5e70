import { phraseShare, queryPairs } from './phrase.ts';
import type { AnalyzedQuery } from './query.ts';
import type { NoteEvidence } from './rank.ts';
import type { ChunkRow } from './search.repo.ts';
import { stem, words } from './text/tokens.ts';
import { MIN_QUERY_WEIGHT, type TermWeights } from './weigh-terms.ts';

/** Best keyword chunks of a note read for coverage and snippets. */
export const CHUNKS_EXAMINED_PER_NOTE = 2;

/** Per candidate note: its keyword chunk scores (best first) and its best chunk by meaning. */
export interface Candidate {
  keyword: { id: number; score: number }[];
  vector?: { id: number; sim: number };
  /** How many of its chunks were compared with the query. */
  passages?: number;
}

export interface Examined {
  /** The notes looked at closely: the best by keywords and the nearest by meaning. */
  ids: string[];
  /** Of those, the ones holding every rare term of the query. */
  rareHolders: Set<string>;
  /** The chunks read: each examined note's best keyword chunks and its best chunk by meaning. */
  chunkById: Map<number, ChunkRow>;
}

/**
 * Step 4, evidence: per candidate note, the coverage and phrase share of its best chunks read, its best chunk
 * (for the snippet), its scores, and whether it holds every rare term.
 */
export function noteEvidence(
  query: AnalyzedQuery,
  byNote: ReadonlyMap<string, Candidate>,
  examined: Examined,
  terms: TermWeights,
): { evidence: NoteEvidence[]; bestChunk: Map<string, { chunk: ChunkRow; coverage: number }> } {
  const { chunkById, rareHolders } = examined;
  const { weights, totalWeight, rareTerms, rareShare } = terms;
  const stemCache = new Map<string, string>();
  const stemOf = (w: string) => {
    let s = stemCache.get(w);
    if (s === undefined) {
      s = stem(w);
      stemCache.set(w, s);
    }
    return s;
  };
  const coverageOf = (chunk: ChunkRow | undefined) => {
    if (!chunk || totalWeight <= 0) return 0;
    const present = new Set<string>();
    for (const w of words(chunk.text)) {
      const s = stemOf(w);
      if (weights.has(s)) present.add(s);
    }
    let got = 0;
    for (const s of present) got += weights.get(s)!;
    // A query of only very common words (low weights) is not "covered" by a chunk that has them.
    return got / Math.max(totalWeight, MIN_QUERY_WEIGHT);
  };

  // Words as typed: what makes a query a keyword query (rank.ts, keywordQueryWords).
  const queryWords = query.raw.split(/\s+/).filter(Boolean).length;
  const pairs = queryPairs(query);
  const bestChunk = new Map<string, { chunk: ChunkRow; coverage: number }>();
  const evidence: NoteEvidence[] = [];
  for (const [noteId, e] of byNote) {
    let best: { chunk: ChunkRow; coverage: number } | undefined;
    let phrase = 0;
    for (const k of e.keyword.slice(0, CHUNKS_EXAMINED_PER_NOTE)) {
      const chunk = chunkById.get(k.id);
      if (!chunk) continue;
      const c = coverageOf(chunk);
      phrase = Math.max(phrase, pairs.length ? phraseShare(pairs, chunk.text, stemOf) : c);
      // Equal coverage: a transcript passage (with its time) makes the better snippet.
      const better =
        !best ||
        c > best.coverage + 1e-9 ||
        (c > best.coverage - 1e-9 && snippetRank(chunk) > snippetRank(best.chunk));
      if (better) best = { chunk, coverage: c };
    }
    const vectorChunk = e.vector ? chunkById.get(e.vector.id) : undefined;
    if (!best && vectorChunk) best = { chunk: vectorChunk, coverage: 0 };
    if (best) bestChunk.set(noteId, best);
    evidence.push({
      noteId,
      keyword: e.keyword.map((k) => k.score),
      ...(e.vector ? { vector: e.vector.sim, passages: e.passages ?? 1 } : {}),
      coverage: best?.coverage ?? 0,
      phrase,
      rareTermsPresent: rareTerms.length > 0 && rareHolders.has(noteId),
      rareShare,
      queryWords,
    });
  }
  return { evidence, bestChunk };
}

/** Which kind of chunk makes the better snippet when two cover the query equally. */
function snippetRank(chunk: ChunkRow): number {
  return chunk.kind === 'transcript' ? 2 : chunk.kind === 'highlight' ? 1 : 0;
}
