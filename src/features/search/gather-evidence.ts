import type { Deps } from '../../deps.ts';
import { dot, isZero } from './embedders/embedder.ts';
import { ensureSpaceIndexed } from './index-note.ts';
import { type Candidate, CHUNKS_EXAMINED_PER_NOTE, type Examined, noteEvidence } from './note-evidence.ts';
import { type AnalyzedQuery, analyzeQuery } from './query.ts';
import type { NoteEvidence } from './rank.ts';
import { type ChunkRow, type SearchFilters, type Space, searchRepo } from './search.repo.ts';
import { bytesToVector } from './search.tables.ts';
import type { SearchInput } from './search.types.ts';
import type { SearchEngine } from './search-engine.ts';
import { buildSnippet } from './snippet.ts';
import { retrievalTerms, type TermWeights, weighTerms } from './weigh-terms.ts';

/** Keyword chunks and nearest notes considered per query. */
const KEYWORD_CANDIDATES = 300;
const VECTOR_NOTES = 25;
/** With a date or tag filter the vector index is asked for more, as the filter applies afterwards. */
const FILTERED_VECTOR_NOTES = 400;
/** Notes whose best chunks are read for coverage and snippets. */
const NOTES_EXAMINED = 30;

export interface GatheredEvidence {
  query: AnalyzedQuery;
  evidence: NoteEvidence[];
  spaceSize: number;
  /** The query's content terms rare enough in this space for the rare-term floor. */
  rareTerms: string[];
  notes: Map<string, { id: string; title: string; created_at: string }>;
  /** The passages read for a candidate note, its best first (what a reranker judges). */
  passagesOf(noteId: string): ChunkRow[];
  /** The best excerpt of a candidate note, or of the given one of its passages. */
  snippetOf(noteId: string, passage?: ChunkRow): ReturnType<typeof buildSnippet>;
  /** Whether vector search took part. */
  usedVectors: boolean;
}

/**
 * Asks both indexes and turns their answers into per-note evidence (what rankNotes scores), in four steps:
 * term weights → retrieve candidates → examine the best candidates → evidence per note. Exported for the
 * quality benchmark, which ranks the same evidence with different parameters.
 */
export async function gatherEvidence(
  deps: Deps,
  space: Space,
  input: SearchInput,
): Promise<GatheredEvidence> {
  const engine = await deps.search.engine();
  await engine.refresh();
  await ensureSpaceIndexed(deps, space);
  const query = analyzeQuery(input.query);
  const filters: SearchFilters = { from: input.from, to: input.to, tag: input.tag };
  // The query's embedding (in the model's worker thread) and the nearest notes overlap with the term statistics
  // and keyword retrieval (docs/performance.md, Search).
  const nearest = nearestByMeaning(deps, engine, space, input, query, filters);
  nearest.catch(() => {});
  const terms = await weighTerms(deps, space, query);
  const retrieved = await retrieve(deps, space, query, filters, terms, nearest);
  const examined = await examine(deps, engine, space, retrieved, terms);
  const { evidence, bestChunk } = noteEvidence(query, retrieved.byNote, examined, terms);
  const { byNote, notes } = retrieved;
  const { chunkById } = examined;

  return {
    query,
    evidence,
    spaceSize: retrieved.spaceSize,
    rareTerms: terms.rareTerms,
    notes,
    usedVectors: retrieved.vectorHits > 0,
    passagesOf: (noteId: string) => {
      const best = bestChunk.get(noteId)?.chunk;
      const e = byNote.get(noteId);
      const read = [
        ...(e?.keyword.slice(0, CHUNKS_EXAMINED_PER_NOTE).map((k) => k.id) ?? []),
        ...(e?.vector ? [e.vector.id] : []),
      ].flatMap((id) => chunkById.get(id) ?? []);
      return [...new Set([...(best ? [best] : []), ...read])];
    },
    snippetOf: (noteId: string, passage?: ChunkRow) => {
      const chunk = passage ?? bestChunk.get(noteId)?.chunk;
      if (!chunk) return { text: notes.get(noteId)?.title ?? '', matchedTerms: 0 };
      return buildSnippet(
        {
          text: chunk.text,
          startMs: chunk.start_ms,
          lineStarts: chunk.line_starts ? (JSON.parse(chunk.line_starts) as number[]) : null,
        },
        terms.weights,
      );
    },
  };
}

interface Retrieved {
  byNote: Map<string, Candidate>;
  notes: Map<string, { id: string; title: string; created_at: string }>;
  spaceSize: number;
  /** The query's vector, when vector search took part. */
  vector?: Float32Array;
  /** Notes nearest to the query by their note vector, nearest first. */
  nearest: string[];
  vectorHits: number;
}

/** The query's vector and the notes nearest to it by their note vector, nearest first (none without vectors). */
async function nearestByMeaning(
  deps: Deps,
  engine: SearchEngine,
  space: Space,
  input: SearchInput,
  query: AnalyzedQuery,
  filters: SearchFilters,
): Promise<{ vector?: Float32Array; hits: { noteId: string }[] }> {
  const embedder = engine.embedder;
  // A query without a letter or digit means nothing (a sentence model would still place it somewhere).
  if (!engine.vectorsReady || !embedder || !/[\p{L}\p{N}]/u.test(query.raw)) return { hits: [] };
  const vector = await deps.search.queryVectors.of(embedder, input.query);
  if (!vector || isZero(vector)) return { hits: [] };
  const filtered = Boolean(filters.from || filters.to || filters.tag);
  const hits = await engine.store.search(
    deps.db,
    embedder.dims,
    space,
    vector,
    filtered ? FILTERED_VECTOR_NOTES : VECTOR_NOTES,
    { embedderId: embedder.id, filters },
  );
  return { vector, hits };
}

/** Step 2, retrieve: keyword chunks (FTS5 / tsvector) and the nearest notes by meaning, at the same time. */
async function retrieve(
  deps: Deps,
  space: Space,
  query: AnalyzedQuery,
  filters: SearchFilters,
  terms: TermWeights,
  vectorNotes: ReturnType<typeof nearestByMeaning>,
): Promise<Retrieved> {
  const retrieval = retrievalTerms(query, terms.df, terms.spaceSize);
  const [keywordHits, vectorResult] = await Promise.all([
    searchRepo.keywordChunks(deps.db, deps.dialect, space, retrieval.terms, filters, KEYWORD_CANDIDATES, {
      all: retrieval.all,
    }),
    vectorNotes,
  ]);

  const byNote = new Map<string, Candidate>();
  const entry = (noteId: string) => {
    let e = byNote.get(noteId);
    if (!e) {
      e = { keyword: [] };
      byNote.set(noteId, e);
    }
    return e;
  };
  for (const hit of keywordHits) entry(hit.note_id).keyword.push({ id: hit.id, score: hit.score });
  for (const hit of vectorResult.hits) entry(hit.noteId);
  const notes = new Map(
    (await searchRepo.notesForResults(deps.db, space, [...byNote.keys()], filters)).map((n) => [n.id, n]),
  );
  for (const id of [...byNote.keys()]) if (!notes.has(id)) byNote.delete(id);
  return {
    byNote,
    notes,
    spaceSize: Math.max(terms.spaceSize, notes.size),
    ...(vectorResult.vector ? { vector: vectorResult.vector } : {}),
    nearest: vectorResult.hits.map((h) => h.noteId),
    vectorHits: vectorResult.hits.length,
  };
}

/**
 * Step 3, examine: the best candidates by keywords and the nearest by meaning get a closer look: every chunk of
 * theirs is compared with the query (the second stage of vector search; sets `vector` and `passages` on
 * `byNote`), which of them hold every rare term, and their best chunks are read.
 */
async function examine(
  deps: Deps,
  engine: SearchEngine,
  space: Space,
  retrieved: Retrieved,
  terms: TermWeights,
): Promise<Examined> {
  const { byNote } = retrieved;
  const keywordLead = [...byNote.entries()]
    .filter(([, e]) => e.keyword.length)
    .map(([id, e]) => ({ id, s: e.keyword.slice(0, 3).reduce((a, k) => a + k.score, 0) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, NOTES_EXAMINED)
    .map((x) => x.id);
  const ids = [...new Set([...keywordLead, ...retrieved.nearest.filter((id) => byNote.has(id))])];

  if (retrieved.vector && engine.embedder) {
    const q = retrieved.vector;
    for (const c of await searchRepo.chunkEmbeddings(deps.db, space, ids, engine.embedder.id)) {
      const sim = dot(q, bytesToVector(c.embedding));
      const e = byNote.get(c.note_id);
      if (!e) continue;
      e.passages = (e.passages ?? 0) + 1;
      if (!e.vector || sim > e.vector.sim) e.vector = { id: c.id, sim };
    }
  }

  const rareHolders = await notesHoldingAll(deps, space, terms.rareTerms, ids);
  const toRead = ids.flatMap((id) => {
    const e = byNote.get(id)!;
    return [
      ...e.keyword.slice(0, CHUNKS_EXAMINED_PER_NOTE).map((k) => k.id),
      ...(e.vector ? [e.vector.id] : []),
    ];
  });
  const chunkById = new Map<number, ChunkRow>(
    (await searchRepo.chunksByIds(deps.db, space, [...new Set(toRead)])).map((c) => [c.id, c]),
  );
  return { ids, rareHolders, chunkById };
}

/** The candidate notes that contain every one of `terms` (stemmed, anywhere in title, summary, transcript). */
async function notesHoldingAll(deps: Deps, space: Space, terms: string[], candidates: string[]) {
  let holders = new Set(candidates);
  for (const term of terms) {
    if (!holders.size) break;
    const found = await searchRepo.notesWithTerm(deps.db, deps.dialect, space, term, [...holders]);
    holders = new Set(found);
  }
  return terms.length ? holders : new Set<string>();
}
