import type { Deps } from '../../deps.ts';
import type { Actor } from '../api-keys/scopes.ts';
import { dot, isZero } from './embedders/embedder.ts';
import { ensureSpaceIndexed } from './index-note.ts';
import { phraseShare, queryPairs } from './phrase.ts';
import { type AnalyzedQuery, analyzeQuery } from './query.ts';
import {
  DEFAULT_RANK_PARAMS,
  holdsRareWords,
  type NoteEvidence,
  type RankParams,
  rankNotes,
} from './rank.ts';
import { type RerankedNote, rerankNotes } from './rerank-notes.ts';
import { type ChunkRow, type SearchFilters, type Space, searchRepo } from './search.repo.ts';
import { bytesToVector } from './search.tables.ts';
import type { SearchEngine } from './search-engine.ts';
import { buildSnippet } from './snippet.ts';
import { stem, words } from './text/tokens.ts';

export interface SearchInput extends SearchFilters {
  query: string;
  limit: number;
  min_relevance: number;
}

export interface SearchResult {
  note_id: string;
  title: string;
  snippet: string;
  relevance: number;
  created_at: string;
  matched_at_ms?: number;
}

/** Keyword chunks and nearest notes considered per query. */
const KEYWORD_CANDIDATES = 300;
const VECTOR_NOTES = 25;
/** With a date or tag filter the vector index is asked for more, as the filter applies afterwards. */
const FILTERED_VECTOR_NOTES = 400;
/** Document frequencies are counted exactly up to this; beyond, estimated (search.repo.ts). */
const DF_EXACT_LIMIT = 300;
/** Note occurrences of the terms that retrieve keyword candidates (see retrievalTerms). */
const RETRIEVAL_BUDGET = 2_000;
/** Notes whose best chunks are read for coverage and snippets. */
const NOTES_EXAMINED = 30;
const CHUNKS_EXAMINED_PER_NOTE = 2;
/**
 * A term is rare in at most 2 % of the space's notes; in a small space, also in up to 3 notes that are at most
 * a tenth of them (2 of 25 notes, 3 of 30). Always in one note.
 */
const RARE_SHARE = 0.02;
const SMALL_SPACE_RARE_NOTES = 3;
const SMALL_SPACE_RARE_SHARE = 0.1;
/** Total term weight (IDF) a query needs for full coverage: about that of one word in a third of the notes. */
const MIN_QUERY_WEIGHT = 1;

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

/** What the space says about the query's terms. */
interface TermWeights {
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
async function weighTerms(deps: Deps, space: Space, query: AnalyzedQuery): Promise<TermWeights> {
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

/** Per candidate note: its keyword chunk scores (best first) and its best chunk by meaning. */
interface Candidate {
  keyword: { id: number; score: number }[];
  vector?: { id: number; sim: number };
  /** How many of its chunks were compared with the query. */
  passages?: number;
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
  const [vector] = await embedder.embed([input.query], 'query');
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

interface Examined {
  /** The notes looked at closely: the best by keywords and the nearest by meaning. */
  ids: string[];
  /** Of those, the ones holding every rare term of the query. */
  rareHolders: Set<string>;
  /** The chunks read: each examined note's best keyword chunks and its best chunk by meaning. */
  chunkById: Map<number, ChunkRow>;
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

/**
 * Step 4, evidence: per candidate note, the coverage and phrase share of its best chunks read, its best chunk
 * (for the snippet), its scores, and whether it holds every rare term.
 */
function noteEvidence(
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

/**
 * The terms that retrieve keyword candidates: all of them while their matches stay few, else the rarest ones
 * within a budget of note occurrences (a frequent word's matches would be scanned and scored for little: it
 * still counts in coverage and snippets). At least the two rarest terms that occur at all; when even those
 * exceed the budget, chunks must hold both (AND), which keeps a query of common words fast and precise.
 */
function retrievalTerms(
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

export { DEFAULT_RANK_PARAMS, type RankParams };
