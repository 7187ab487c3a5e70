import type { Deps } from '../../deps.ts';
import type { Actor } from '../api-keys/scopes.ts';
import { type GatheredEvidence, gatherEvidence } from './gather-evidence.ts';
import { DEFAULT_RANK_PARAMS, holdsRareWords, rankNotes } from './rank.ts';
import { type RerankedNote, rerankNotes } from './rerank-notes.ts';
import type { Space } from './search.repo.ts';
import type { SearchInput, SearchResult } from './search.types.ts';

/**
 * Hybrid search over the caller's notes: keyword (FTS5 / tsvector) and vector (sqlite-vec / pgvector)
 * candidates, one result per note, ranked by fused score, with a calibrated relevance; results below
 * `min_relevance` are left out. Never fails on odd input: a query without usable words returns no results.
 */
export async function searchNotes(
  deps: Deps,
  actor: Actor,
  input: SearchInput,
): Promise<{ results: SearchResult[] }> {
  const space: Space = { accountId: actor.accountId, mode: actor.mode };
  const gathered = await gatherEvidence(deps, space, input);
  const ranked = rankNotes(gathered.evidence, gathered.spaceSize);
  const reranked = await rerankIfConfigured(deps, input, gathered, ranked);
  const results: SearchResult[] = [];
  for (const r of reranked ?? ranked) {
    if (r.relevance < input.min_relevance) continue;
    const note = gathered.notes.get(r.noteId)!;
    const snippet = gathered.snippetOf(r.noteId, 'passage' in r ? r.passage : undefined);
    results.push({
      note_id: r.noteId,
      title: note.title,
      snippet: snippet.text,
      relevance: Math.round(Math.min(1, Math.max(0, r.relevance)) * 10_000) / 10_000,
      created_at: note.created_at,
      ...(snippet.matchedAtMs !== undefined ? { matched_at_ms: snippet.matchedAtMs } : {}),
    });
    if (results.length >= input.limit) break;
  }
  return { results };
}

/**
 * With RERANKER set: the fused ranking's best notes (at least `limit`), re-scored by the reranker from the
 * passages read for each, best first; a note holding the query's rare words (`holdsRareWords`) keeps the rare-term floor.
 * Undefined without a reranker, or when it fails: the search then answers from its own ranking, and the failure
 * is logged.
 */
async function rerankIfConfigured(
  deps: Deps,
  input: SearchInput,
  gathered: GatheredEvidence,
  ranked: readonly { noteId: string }[],
): Promise<RerankedNote[] | undefined> {
  const settings = deps.config.search.reranker;
  const reranker = deps.search.reranker;
  if (!settings || !reranker) return undefined;
  // Only notes whose passages were read can be judged (the examined ones: nearly always the fused ranking's best).
  const rare = new Set(gathered.evidence.filter((e) => holdsRareWords(e)).map((e) => e.noteId));
  const candidates = ranked
    .map((r) => ({
      noteId: r.noteId,
      passages: gathered.passagesOf(r.noteId),
      floor: rare.has(r.noteId) ? DEFAULT_RANK_PARAMS.rareFloor : 0,
    }))
    .filter((c) => c.passages.length)
    .slice(0, Math.max(settings.candidates, input.limit));
  if (!candidates.length) return undefined;
  try {
    return await rerankNotes(reranker, input.query, candidates);
  } catch (err) {
    deps.logger.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'reranker failed; search results use the builtin ranking',
    );
    return undefined;
  }
}
