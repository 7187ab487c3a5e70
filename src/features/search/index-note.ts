import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { inSpace } from '../../db/in-space.ts';
import type { Db } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { nowIso } from '../../lib/time.ts';
import { findStoredNote, storedNoteParts } from '../notes/stored-note.service.ts';
import type { NoteContent } from './chunk-note.ts';
import { type Embedder, isZero, normalize } from './embedders/embedder.ts';
import { type NewChunkRow, type Space, searchRepo } from './search.repo.ts';
import { bytesToVector, vectorToBytes } from './search.tables.ts';
import { META_DIMS, META_EMBEDDER, type SearchEngine } from './search-engine.ts';

const textHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/** A note's index entries, chunked and embedded (outside any transaction), ready to be written in one. */
export interface PreparedNoteIndex {
  /** The title the chunks hold: the writer checks, inside its transaction, that it is still the note's. */
  title: string;
  rows: NewChunkRow[];
}

/**
 * Chunks a note and embeds what changed since it was last indexed (a chunk whose text is unchanged keeps its
 * vector, so renaming a note embeds one title). Reads and embeds only, so that no transaction is held open
 * while a provider answers: write the result with writeNoteIndex in the transaction that needs it. Throws
 * when the embedder fails, unless `withoutVectorsOnFailure`: the chunks then go without vectors (keyword
 * search finds the note; `minutes reindex` adds the vectors later) and a warning is logged.
 */
export async function prepareNoteIndex(
  deps: Deps,
  engine: SearchEngine,
  noteId: string,
  content: NoteContent,
  options: { withoutVectorsOnFailure?: boolean; signal?: AbortSignal } = {},
): Promise<PreparedNoteIndex> {
  const rows: NewChunkRow[] = (await deps.processing.chunk(content, options.signal)).map((c) => ({
    kind: c.kind,
    position: c.position,
    start_ms: c.startMs,
    line_starts: c.lineStarts ? JSON.stringify(c.lineStarts) : null,
    text: c.text,
    text_hash: textHash(c.text),
    embedding: null,
    embedder: null,
  }));
  const embedder = engine.embedder;
  if (embedder) {
    const reusable = new Map<string, Uint8Array>();
    for (const old of await searchRepo.existingEmbeddings(deps.db, noteId)) {
      if (old.embedder === embedder.id && old.embedding) reusable.set(old.text_hash, old.embedding);
    }
    const missing = rows.filter((r) => !reusable.has(r.text_hash));
    let vectors: Float32Array[] | undefined;
    try {
      vectors = await embedInTurns(
        embedder,
        missing.map((r) => r.text),
      );
    } catch (err) {
      if (!options.withoutVectorsOnFailure) throw err;
      deps.logger.warn(
        { err, note_id: noteId, embedder: embedder.id },
        'could not embed the note; indexed for keyword search only (run `npx minutes reindex` to add its vectors)',
      );
    }
    if (vectors) {
      for (const [i, r] of missing.entries()) reusable.set(r.text_hash, vectorToBytes(vectors[i]!));
      for (const r of rows) {
        r.embedding = reusable.get(r.text_hash) ?? null;
        r.embedder = embedder.id;
      }
    }
  }
  return { title: content.title, rows };
}

/** Chunks embedded per call: the builtin embedder computes on the event loop, so a long note lets requests in between. */
const EMBED_BATCH = 64;

async function embedInTurns(embedder: Embedder, texts: string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += EMBED_BATCH) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    out.push(...(await embedder.embed(texts.slice(i, i + EMBED_BATCH), 'passage')));
  }
  return out;
}

/**
 * Writes prepared entries: replaces the note's chunks, keyword entries and vector (the vec0 row on SQLite, the
 * pgvector row on PostgreSQL). Call it inside the transaction that makes the note's state final (processing
 * publishing it, indexNote holding the note's row), so the index and the note commit together.
 */
export async function writeNoteIndex(
  db: Db,
  engine: SearchEngine,
  space: Space,
  noteId: string,
  prepared: PreparedNoteIndex,
): Promise<void> {
  const { rows } = prepared;
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
    embedder: rows.find((r) => r.embedder)?.embedder ?? null,
    embedding: vector ? vectorToBytes(vector) : null,
    chunkCount: rows.length,
    at: nowIso(),
  });
}

/** The note's searchable content as stored (what processing indexed when it published the note). */
async function storedContent(
  db: Db,
  note: { id: string; title: string; summary: string },
): Promise<NoteContent> {
  const { segments, speakers, highlights, actionItems } = await storedNoteParts(db, note.id, true);
  return { title: note.title, summary: note.summary, segments, speakers, highlights, actionItems };
}

/**
 * The note's status and title, its row locked until the transaction ends on PostgreSQL (SQLite has one
 * writer at a time anyway). Index writers lock the note first, as processing's markReady does, so they wait
 * for each other in one order.
 */
async function lockNote(db: Db, deps: Deps, space: Space, noteId: string) {
  return db
    .selectFrom('notes')
    .select(['status', 'title'])
    .where('id', '=', noteId)
    .where(inSpace(space))
    .$if(deps.dialect === 'postgres', (qb) => qb.forUpdate())
    .executeTakeFirst();
}

/** Rounds of indexNote when the note keeps changing between reading and writing (a rename each time). */
const INDEX_ROUNDS = 5;

/**
 * (Re)builds the index entries of one note from what is stored: reads and embeds outside any transaction,
 * then, holding the note's row, checks that it is still ready with the same title and replaces its chunks,
 * keyword entries and vector in one transaction (when it changed meanwhile, it reads again). A note that is
 * gone or not processed is removed from the index instead. Idempotent; used after a title change, by the
 * search catch-up and by `reindex` (processing writes the index in its own publishing transaction). Throws
 * when the embedder fails.
 */
export async function indexNote(
  deps: Deps,
  space: Space,
  noteId: string,
  options: { signal?: AbortSignal } = {},
): Promise<'indexed' | 'removed'> {
  const engine = await deps.search.engine();
  for (let round = 1; ; round++) {
    const note = await findStoredNote(deps.db, space, noteId);
    const prepared =
      note?.status === 'ready'
        ? await prepareNoteIndex(deps, engine, noteId, await storedContent(deps.db, note), options)
        : undefined;
    const result = await deps.db.transaction().execute(async (trx) => {
      const current = await lockNote(trx, deps, space, noteId);
      if (current?.status !== 'ready') {
        if (current && engine.vectorsReady && engine.embedder) {
          await engine.store.remove(trx, engine.embedder.dims, [noteId]);
        }
        await searchRepo.deleteNote(trx, noteId);
        return 'removed' as const;
      }
      // Processed, or renamed, since it was read: read it again.
      if (!prepared || current.title !== prepared.title) return 'changed' as const;
      await writeNoteIndex(trx, engine, space, noteId, prepared);
      return 'indexed' as const;
    });
    if (result !== 'changed') return result;
    if (round >= INDEX_ROUNDS) throw new Error(`note ${noteId} kept changing while it was being indexed`);
  }
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
  space: Space,
  noteId: string,
  db: Db = deps.db,
): Promise<void> {
  // The note's row first, as every index writer locks it first (PostgreSQL): no deadlock with processing.
  if (deps.dialect === 'postgres' && db !== deps.db) await lockNote(db, deps, space, noteId);
  // A delete neither loads the embedder nor waits for it (at start it may be building): without a ready
  // engine the vector stays, and the next search that meets it drops it (pgvector: the foreign key does).
  // First the vector (sqlite-vec finds it through the note's row), then the rows.
  const engine = deps.search.startedEngine();
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

/** Notes indexed on the spot by one search; more than this waits for `minutes reindex`. */
const CATCH_UP_LIMIT = 200;

/**
 * Indexes processed notes of the space that are not in the index, once per process: the seeded test data
 * space (written without the processing pipeline) and notes processed before search existed.
 */
export async function ensureSpaceIndexed(deps: Deps, space: Space): Promise<void> {
  // Spaces whose processed notes are known to be indexed: checked once per deps.
  const covered = deps.search.coveredSpaces;
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
  const engine = await deps.search.engine();
  const embedder = engine.embedder;
  if (!embedder) {
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
