import type { Deps } from '../../deps.ts';
import { dot, isZero } from './embedders/embedder.ts';
import { resultsRepo } from './repo/results.repo.ts';
import type { Space } from './repo/search-rows.ts';
import { vectorsRepo } from './repo/vectors.repo.ts';
import { bytesToVector } from './search.tables.ts';

/** A transcript passage of a note and how close in meaning a question is to it. */
export interface PassageSimilarity {
  start_ms: number;
  similarity: number;
}

/**
 * How close in meaning a question is to each indexed transcript passage of the given notes (of the space only),
 * from the vectors the index already holds: nothing is embedded but the question. Empty when the index has no
 * vectors (keyword-only search, or an embedder that could not load).
 */
export async function passageSimilarities(
  deps: Deps,
  space: Space,
  noteIds: readonly string[],
  question: string,
): Promise<Map<string, PassageSimilarity[]>> {
  const out = new Map<string, PassageSimilarity[]>();
  const engine = await deps.search.engine();
  const embedder = engine.embedder;
  if (!engine.vectorsReady || !embedder || !noteIds.length) return out;
  const query = await deps.search.queryVectors.of(embedder, question);
  if (!query || isZero(query)) return out;
  const vectors = await vectorsRepo.chunkEmbeddings(deps.db, space, noteIds, embedder.id);
  const rows = await resultsRepo.chunksByIds(
    deps.db,
    space,
    vectors.map((v) => v.id),
  );
  const startOf = new Map(rows.filter((r) => r.kind === 'transcript').map((r) => [r.id, r.start_ms]));
  for (const v of vectors) {
    const start = startOf.get(v.id);
    if (start === undefined || start === null) continue;
    const list = out.get(v.note_id) ?? [];
    list.push({ start_ms: start, similarity: dot(query, bytesToVector(v.embedding)) });
    out.set(v.note_id, list);
  }
  return out;
}
