import type { NoteEvidence, RankParams } from '../../src/features/search/rank.ts';
import { DEFAULT_RANK_PARAMS, rankNotes } from '../../src/features/search/rank.ts';
import { type QueryEvidence, turnAt } from './qmsum.ts';

export type Mode = 'keyword' | 'vector' | 'hybrid';

/** The evidence a single-index search would have had. */
export function evidenceFor(mode: Mode, evidence: readonly NoteEvidence[]): NoteEvidence[] {
  if (mode === 'hybrid') return [...evidence];
  if (mode === 'keyword') {
    return evidence.filter((e) => e.keyword.length).map(({ vector: _vector, ...rest }) => rest);
  }
  return evidence
    .filter((e) => e.vector !== undefined)
    .map((e) => ({ ...e, keyword: [], coverage: 0, rareTermsPresent: false }));
}

export interface Metrics {
  queries: number;
  mrr10: number;
  recall1: number;
  recall5: number;
  recall10: number;
  /** Share of queries whose correct top-1 result has relevance ≥ 0.5. */
  correctTop1Relevant: number;
  correctTop1: number;
  /** Share of queries, run without their meeting, that still return something at ≥ 0.5. */
  absentReturnsRelevant: number;
  /** Of correct top-1 results with a transcript snippet: share whose snippet starts inside a relevant span. */
  snippetInSpan: number;
}

/** Ranking and calibration metrics of one mode (and parameter set) over every query. */
export function evaluate(
  queries: readonly QueryEvidence[],
  turnStarts: ReadonlyMap<string, number[]>,
  mode: Mode,
  params: RankParams = DEFAULT_RANK_PARAMS,
): Metrics {
  let mrr = 0;
  let r1 = 0;
  let r5 = 0;
  let r10 = 0;
  let top1Relevant = 0;
  let absent = 0;
  let snippetTotal = 0;
  let snippetIn = 0;
  for (const q of queries) {
    const ev = evidenceFor(mode, q.evidence);
    const ranked = rankNotes(ev, q.spaceSize, params);
    const position = ranked.slice(0, 10).findIndex((r) => r.noteId === q.relevantNote);
    if (position >= 0) {
      mrr += 1 / (position + 1);
      if (position < 1) r1++;
      if (position < 5) r5++;
      r10++;
    }
    if (position === 0) {
      if (ranked[0]!.relevance >= 0.5) top1Relevant++;
      if (q.relevantSnippetMs !== undefined) {
        snippetTotal++;
        const turn = turnAt(turnStarts.get(q.relevantNote) ?? [0], q.relevantSnippetMs);
        if (q.spans.some(([a, b]) => turn >= a && turn <= b)) snippetIn++;
      }
    }
    const without = rankNotes(
      ev.filter((e) => e.noteId !== q.relevantNote),
      q.spaceSize - 1,
      params,
    );
    if (without.some((r) => r.relevance >= 0.5)) absent++;
  }
  const n = queries.length;
  return {
    queries: n,
    mrr10: mrr / n,
    recall1: r1 / n,
    recall5: r5 / n,
    recall10: r10 / n,
    correctTop1: r1,
    correctTop1Relevant: r1 ? top1Relevant / r1 : 0,
    absentReturnsRelevant: absent / n,
    snippetInSpan: snippetTotal ? snippetIn / snippetTotal : 0,
  };
}

/** MRR@10 and recalls of a plain ranking (the peer baseline). */
export function rankingMetrics(rankings: readonly { relevant: string; ranked: readonly string[] }[]) {
  let mrr = 0;
  let r1 = 0;
  let r5 = 0;
  let r10 = 0;
  for (const { relevant, ranked } of rankings) {
    const position = ranked.slice(0, 10).indexOf(relevant);
    if (position >= 0) {
      mrr += 1 / (position + 1);
      if (position < 1) r1++;
      if (position < 5) r5++;
      r10++;
    }
  }
  const n = rankings.length;
  return { queries: n, mrr10: mrr / n, recall1: r1 / n, recall5: r5 / n, recall10: r10 / n };
}
