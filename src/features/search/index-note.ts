import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { nowIso } from '../../lib/time.ts';
import { notesRepo } from '../notes/notes.repo.ts';
import { chunkNote } from './chunk-note.ts';
import { isZero, normalize } from './embedders/embedder.ts';
import { type NewChunkRow, type Space, searchRepo } from './search.repo.ts';
import { bytesToVector, vectorToBytes } from './search.tables.ts';
import {
  getSearchEngine,
  META_DIMS,
  META_EMBEDDER,
  type SearchEngine,
  startedSearchEngine,
} from './search-engine.ts';

const textHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/**
 * (Re)builds the index entries of one note: chunks it, embeds what changed (an unchanged chunk keeps its
 * vector, so renaming a note embeds one title), and replaces its chunks, keyword entries and vectors in one
 * transaction. A note that is gone or not processed yet is removed from the index instead. Idempotent; call
 * it after processing, after a title change, and from `reindex`. Throws when the embedder fails (the
 * processing job then retries).
 */
export async function indexNote(deps: Deps, space: Space, noteId: string): Promise<'indexed' | 'removed'> {
  const engine = await getSearchEngine(deps);
  const note = await notesRepo.find(deps.db, space, noteId);
  if (note?.status !== 'ready') {
    await removeNoteFromIndex(deps, space, noteId);
    return 'removed';
  }
  const [segments, speakers, highlights, actionItems] = await Promise.all([
    notesRepo.segments(deps.db, noteId),
    notesRepo.speakers(deps.db, noteId),
    notesRepo.highlights(deps.db, noteId),
    notesRepo.actionItems(deps.db, noteId),
  ]);
  const chunks = chunkNote({
    title: note.title,
    summary: note.summary,
    segments,
    speakers,
    highlights,
    actionItems,
  });

  const embedder = engine.embedder;
  const rows: NewChunkRow[] = chunks.map((c) => ({
    kind: c.kind,
    position: c.position,
    start_ms: c.startMs,
    line_starts: c.lineStarts ? JSON.stringify(c.lineStarts) : null,
    text: c.text,
    text_hash: textHash(c.text),
    embedding: null,
    embedder: null,
  }));
  if (embedder) {
    const reusable = new Map<string, Uint8Array>();
    for (const old of await searchRepo.existingEmbeddings(deps.db, noteId)) {
      if (old.embedder === embedder.id && old.embedding) reusable.set(old.text_hash, old.embedding);
    }
    const missing = rows.filter((r) => !reusable.has(r.text_hash));
    const vectors = await embedder.embed(
      missing.map((r) => r.text),
      'passage',
    );
    for (const [i, r] of missing.entries()) reusable.set(r.text_hash, vectorToBytes(vectors[i]!));
    for (const r of rows) {
      r.embedding = reusable.get(r.text_hash) ?? null;
      r.embedder = embedder.id;
    }
  }

  return deps.db.transaction().execute(async (trx) => {
    // Serialises concurrent re-indexing of one note (a rename during processing) on PostgreSQL.
    if (deps.dialect === 'postgres') {
      const locked = await sql`SELECT id FROM notes WHERE id = ${noteId} FOR UPDATE`.execute(trx);
      if (!locked.rows.length) return 'removed' as const;
    } else if (!(await notesRepo.find(trx, space, noteId))) {
      return 'removed' as const;
    }
    await replaceChunks(trx, engine, space, noteId, rows);
    return 'indexed' as const;
  });
}

async function replaceChunks(
  db: Db,
  engine: SearchEngine,
  space: Space,
  noteId: string,
  rows: NewChunkRow[],
): Promise<void> {
  await searchRepo.deleteNote(db, noteId);
  await searchRepo.insertChunks(db, space, noteId, rows);
  const vector = noteVector(rows);
  if (engine.vectorsReady && engine.embedder) {
    const dims = engine.embedder.dims;
    if (vector) {
      await engine.store.put(db, dims, { noteId, accountId: space.accountId, mode: space.mode, vector });
    } else {
      await engine.store.remove(db, dims, [noteId]);
    }
  }
  await searchRepo.markIndexed(db, space, noteId, {
    embedder: rows[0]?.embedder ?? null,
    embedding: vector ? vectorToBytes(vector) : null,
    chunkCount: rows.length,
    at: nowIso(),
  });
}

/** The note's vector: the normalised mean of its (non-zero) chunk vectors; null when it has none. */
function noteVector(rows: readonly NewChunkRow[]): Float32Array | null {
  let mean: Float32Array | null = null;
  for (const r of rows) {
    if (!r.embedding) continue;
    const v = bytesToVector(r.embedding);
    if (isZero(v)) continue;
    mean ??= new Float32Array(v.length);
    for (let d = 0; d < v.length; d++) mean[d]! += v[d]!;
  }
  return mean && !isZero(mean) ? normalize(mean) : null;
}

/**
 * Removes a note's chunks, keyword entries and vector. Call it in the transaction that deletes the note,
 * before the note's row goes, so both commit together. Chunks also cascade with the note; this matters for
 * the sqlite-vec table, which has no foreign key (a vector left behind is dropped at the next search that
 * meets it).
 */
export async function removeNoteFromIndex(
  deps: Deps,
  _space: Space,
  noteId: string,
  db: Db = deps.db,
): Promise<void> {
  // A delete does not load the embedder: without a started engine the vector stays, and the next search
  // that meets it drops it. First the vector (sqlite-vec finds it through the note's row), then the rows.
  const engine = await startedSearchEngine(deps);
  if (engine?.vectorsReady && engine.embedder) await engine.store.remove(db, engine.embedder.dims, [noteId]);
  await searchRepo.deleteNote(db, noteId);
}

/**
 * indexNote for edits made through the API (a title change): a failure is logged, not thrown, so the edit
 * itself succeeds; `minutes reindex` repairs what was missed.
 */
export async function refreshNoteIndex(deps: Deps, space: Space, noteId: string): Promise<void> {
  try {
    await indexNote(deps, space, noteId);
  } catch (err) {
    deps.logger.warn({ err, note_id: noteId }, 'could not update the search index of the note');
  }
}

/** Spaces whose processed notes are known to be indexed, per deps (checked once per process). */
const coveredSpaces = new WeakMap<Deps, Set<string>>();
/** Notes indexed on the spot by one search; more than this waits for `minutes reindex`. */
const CATCH_UP_LIMIT = 200;

/**
 * Indexes processed notes of the space that are not in the index, once per process: the seeded test data
 * space (written without the processing pipeline) and notes processed before search existed.
 */
export async function ensureSpaceIndexed(deps: Deps, space: Space): Promise<void> {
  let covered = coveredSpaces.get(deps);
  if (!covered) {
    covered = new Set();
    coveredSpaces.set(deps, covered);
  }
  const key = `${space.accountId}:${space.mode}`;
  if (covered.has(key)) return;
  const missing = await searchRepo.unindexedNotes(deps.db, space, CATCH_UP_LIMIT + 1);
  for (const { id } of missing.slice(0, CATCH_UP_LIMIT)) await indexNote(deps, space, id);
  if (missing.length > CATCH_UP_LIMIT) {
    deps.logger.warn(
      { account_id: space.accountId, mode: space.mode },
      'many notes of this space are not in the search index; run `npx minutes reindex`',
    );
  }
  covered.add(key);
}

export interface ReindexProgress {
  phase: 'notes' | 'done';
  done: number;
  total: number;
}

/**
 * Rebuilds the whole index with the configured embedder: drops the vector tables, re-chunks and re-embeds
 * every processed note of every account (embeddings of unchanged text by the same embedder are reused), then
 * records the embedder as the index's. What `npx minutes reindex` runs; safe to re-run after an interruption.
 */
export async function reindexAll(
  deps: Deps,
  onProgress: (progress: ReindexProgress) => void = () => {},
): Promise<{ notes: number; chunks: number; seconds: number }> {
  const started = performance.now();
  const engine = await getSearchEngine(deps);
  const embedder = engine.embedder;
  if (engine.store.kind !== 'none' && !embedder) {
    throw new Error(`Cannot rebuild the search index: ${engine.vectorProblem ?? 'no embedder'}.`);
  }
  if (embedder) {
    await engine.store.reset(deps.db);
    await engine.store.prepare(deps.db, embedder.dims);
    await searchRepo.setMeta(deps.db, META_EMBEDDER, embedder.id, nowIso());
    await searchRepo.setMeta(deps.db, META_DIMS, String(embedder.dims), nowIso());
    delete engine.indexEmbedder;
    delete engine.vectorProblem;
    engine.vectorsReady = true;
  }
  const notes = await searchRepo.allIndexableNotes(deps.db);
  let chunks = 0;
  onProgress({ phase: 'notes', done: 0, total: notes.length });
  for (const [i, note] of notes.entries()) {
    await indexNote(deps, { accountId: note.account_id, mode: note.mode }, note.id);
    onProgress({ phase: 'notes', done: i + 1, total: notes.length });
  }
  const summary = await searchRepo.indexSummary(deps.db, embedder?.id ?? '');
  chunks = await countChunks(deps.db);
  onProgress({ phase: 'done', done: notes.length, total: notes.length });
  deps.logger.info({ notes: summary.indexed, chunks }, 'search index rebuilt');
  return { notes: notes.length, chunks, seconds: (performance.now() - started) / 1000 };
}

async function countChunks(db: Db): Promise<number> {
  const row = await sql<{ n: number }>`SELECT count(*) AS n FROM search_chunks`.execute(db);
  return Number(row.rows[0]?.n ?? 0);
}
