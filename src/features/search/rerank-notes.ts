import type { CohereReranker } from './reranker.ts';
import type { ChunkRow } from './search.repo.ts';

export interface RerankedNote {
  noteId: string;
  /**
   * The reranker's score of the note's best passage, in [0, 1]; at least `floor` (a note holding the query's rare
   * words keeps the ≥ 0.5 that API.md promises, whatever the reranker says; rank.ts `holdsRareWords`).
   */
  relevance: number;
  /** That passage, which becomes the snippet. */
  passage?: ChunkRow;
}

/**
 * Scores every passage of the candidate notes (each with at least one) in one request and ranks the notes by
 * their best passage, raised to their floor; ties keep the order the candidates came in (the fused ranking).
 */
export async function rerankNotes(
  reranker: Pick<CohereReranker, 'score'>,
  query: string,
  candidates: readonly { noteId: string; passages: readonly ChunkRow[]; floor: number }[],
): Promise<RerankedNote[]> {
  const flat = candidates.flatMap((c, note) => c.passages.map((passage) => ({ note, passage })));
  const scores = await reranker.score(
    query,
    flat.map((f) => f.passage.text),
  );
  const best: RerankedNote[] = candidates.map((c) => ({ noteId: c.noteId, relevance: 0 }));
  flat.forEach(({ note, passage }, i) => {
    const current = best[note]!;
    if (current.passage === undefined || scores[i]! > current.relevance) {
      best[note] = { noteId: current.noteId, relevance: scores[i]!, passage };
    }
  });
  best.forEach((r, i) => {
    r.relevance = Math.max(r.relevance, candidates[i]!.floor);
  });
  return best
    .map((r, order) => ({ r, order }))
    .sort((a, b) => b.r.relevance - a.r.relevance || a.order - b.order)
    .map(({ r }) => r);
}
