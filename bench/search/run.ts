/**
 * Search speed (npm run bench:search): NOTES notes (default 10,000) of about WORDS words (default 300) in one
 * account, built from real meeting speech, indexed with the builtin embedder; then QUERIES searches (QMSum
 * questions and short keyword queries) through the search service. Reports indexing throughput (chunks/s),
 * p50/p95 search latency for SQLite (sqlite-vec) and PostgreSQL (keyword-only without pgvector), where a search
 * spends its time (PROFILE=1), and the time to index a one-hour meeting with the model (SQLite).
 *
 * Embedding 10,000 notes with all-MiniLM-L6-v2 takes about an hour on this machine, so the notes are built from a
 * pool of POOL (default 3,000) transcript passages of QMSum speech (consecutive turns of 120–200 words, each one
 * exactly a passage the chunker makes): every note is WORDS/150 passages drawn at random, its title and summary
 * its first 8 and 60 words. Distinct texts to embed are then ~3 × POOL, and their vectors are cached on disk
 * (vector-cache.ts), so a rerun embeds nothing. Query vectors are never cached.
 *
 * Options by environment: NOTES, WORDS, POOL, QUERIES, DIALECTS=sqlite,postgres, PROFILE=1, MEETINGS (one-hour
 * meetings indexed, default 3; 0 skips), BENCH_DATABASE_URL (PostgreSQL server; default TEST_DATABASE_URL or
 * postgres://postgres@127.0.0.1:5432/postgres), BENCH_VECTOR_CACHE=off, BENCH_VECTOR_EXTENSION=off (SQLite without
 * sqlite-vec: the `exact` vector store).
 */
import os from 'node:os';
import { sql } from 'kysely';
import type { Db, Dialect, Mode } from '../../src/db/schema.ts';
import { cleanText, DEFAULT_CHUNKING } from '../../src/features/search/chunk-note.ts';
import { indexNote } from '../../src/features/search/index-note.ts';
import { searchRepo } from '../../src/features/search/search.repo.ts';
import { searchNotes } from '../../src/features/search/search.service.ts';
import type { SearchEngine } from '../../src/features/search/search-engine.ts';
import type { TranscriptSegment } from '../../src/features/transcripts/parse-transcript.ts';
import { renderTranscript } from '../../src/features/transcripts/render-transcript.ts';
import { newId } from '../../src/lib/ids.ts';
import { mulberry32 } from '../../src/lib/prng.ts';
import { loadMeetings, type Meeting, segmentsOf } from '../search-quality/qmsum.ts';
import { createBaselineExactStore, createBaselineVectorCache } from './baseline-exact-store.ts';
import { benchActor, benchDeps, openBenchDatabase, percentile } from './setup.ts';
import { useVectorCache } from './vector-cache.ts';

const NOTES = Number(process.env.NOTES ?? 10_000);
const WORDS = Number(process.env.WORDS ?? 300);
const POOL = Number(process.env.POOL ?? 3_000);
const QUERIES = Number(process.env.QUERIES ?? 200);
const MEETINGS = Number(process.env.MEETINGS ?? 3);
const PROFILE = process.env.PROFILE === '1';
const DIALECTS = (process.env.DIALECTS ?? 'sqlite,postgres').split(',').map((d) => d.trim()) as Dialect[];

const meetings = loadMeetings();
const turns = meetings.flatMap((m) =>
  segmentsOf(m)
    .map((s) => ({ speaker: s.speaker, text: cleanText(s.text) }))
    .filter((s) => s.text),
);
const countWords = (text: string) => text.split(/\s+/).filter(Boolean).length;
const questions = meetings.flatMap((m) => m.queries.map((q) => q.query));
const KEYWORD_QUERIES = [
  'remote control buttons',
  'budget',
  'speech recognition',
  'school funding',
  'battery',
];

interface NoteSeed {
  title: string;
  summary: string;
  segments: { speaker: string; start_ms: number; end_ms: number; text: string }[];
}

/**
 * Runs of consecutive turns that the chunker turns into exactly one passage each: they reach the chunker's
 * target only with their last turn and stay within its maximum, so a note made of whole runs is chunked into
 * exactly these runs (and their cached vectors serve every note that holds them).
 */
function passagePool(size: number, random: () => number): (typeof turns)[] {
  const pool: (typeof turns)[] = [];
  const seen = new Set<number>();
  for (let attempt = 0; pool.length < size && attempt < size * 50; attempt++) {
    const start = Math.floor(random() * turns.length);
    if (seen.has(start)) continue;
    seen.add(start);
    const run: typeof turns = [];
    let words = 0;
    for (let i = start; i < turns.length && words < DEFAULT_CHUNKING.targetWords; i++) {
      run.push(turns[i]!);
      words += countWords(turns[i]!.text);
    }
    if (words >= DEFAULT_CHUNKING.targetWords && words <= DEFAULT_CHUNKING.maxWords) pool.push(run);
  }
  return pool;
}

function makeNote(random: () => number, pool: readonly (typeof turns)[]): NoteSeed {
  const segments: NoteSeed['segments'] = [];
  let t = 0;
  const passages = Math.max(1, Math.round(WORDS / 150));
  for (let p = 0; p < passages; p++) {
    for (const turn of pool[Math.floor(random() * pool.length)]!) {
      const n = countWords(turn.text);
      segments.push({ speaker: turn.speaker, start_ms: t, end_ms: t + n * 400, text: turn.text });
      t += n * 400 + 200;
    }
  }
  const text = segments.map((s) => s.text).join(' ');
  return {
    title: text.split(/\s+/).slice(0, 8).join(' '),
    summary: text.split(/\s+/).slice(0, 60).join(' '),
    segments,
  };
}

/** A processed note with its segments, written straight to the tables (what indexing reads). */
async function insertReadyNote(
  db: Db,
  accountId: string,
  note: { id: string; title: string; summary: string; segments: TranscriptSegment[]; createdAt: string },
) {
  await db
    .insertInto('notes')
    .values({
      id: note.id,
      account_id: accountId,
      mode: 'live',
      recording_id: null,
      status: 'ready',
      failure_reason: null,
      title: note.title,
      title_locked: 0,
      summary: note.summary,
      transcript: renderTranscript(note.segments),
      duration_seconds: Math.ceil(note.segments.at(-1)!.end_ms / 1000),
      tags: '[]',
      created_at: note.createdAt,
      updated_at: note.createdAt,
    })
    .execute();
  await db
    .insertInto('segments')
    .values(
      note.segments.map((s, position) => ({
        ...s,
        note_id: note.id,
        account_id: accountId,
        mode: 'live' as Mode,
        position,
      })),
    )
    .execute();
}

async function runDialect(dialect: Dialect) {
  const database = await openBenchDatabase(dialect);
  try {
    const deps = benchDeps(database);
    const actor = await benchActor(database);
    const space = { accountId: actor.accountId, mode: 'live' as Mode };
    const engine = await deps.search.engine();
    const meeting = dialect === 'sqlite' && MEETINGS > 0 ? await timeOneHourMeetings(deps, actor) : undefined;
    const cache = await useVectorCache(deps);
    const random = mulberry32(42);
    const pool = passagePool(POOL, random);
    const ids: string[] = [];
    process.stderr.write(`[${dialect}] inserting ${NOTES} notes (from ${pool.length} passages)…\n`);
    for (let b = 0; b < NOTES; b += 100) {
      const batch = Array.from({ length: Math.min(100, NOTES - b) }, () => makeNote(random, pool));
      await database.db.transaction().execute(async (trx) => {
        for (const [j, note] of batch.entries()) {
          const id = newId('note');
          ids.push(id);
          await insertReadyNote(trx, actor.accountId, {
            id,
            title: note.title,
            summary: note.summary,
            segments: note.segments,
            createdAt: new Date(Date.UTC(2025, 0, 1) + (b + j) * 3_600_000).toISOString(),
          });
        }
      });
    }
    process.stderr.write(`[${dialect}] indexing (vector store: ${engine.store.kind})…\n`);
    const started = performance.now();
    for (const [i, id] of ids.entries()) {
      await indexNote(deps, space, id);
      if ((i + 1) % 1000 === 0)
        process.stderr.write(
          `  ${i + 1}/${ids.length}${cache ? ` (vectors: ${cache.hits} cached, ${cache.misses} embedded)` : ''}\n`,
        );
    }
    const indexSeconds = (performance.now() - started) / 1000;
    const chunks = Number(
      (
        await database.db
          .selectFrom('search_chunks' as never)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

    // Planner statistics, as autovacuum would have gathered by now: PostgreSQL search reads the frequent words
    // from them.
    if (dialect === 'postgres') await sql`ANALYZE`.execute(database.db);

    const queryRandom = mulberry32(7);
    const queries = Array.from({ length: QUERIES }, (_, i) =>
      i % 10 === 0
        ? KEYWORD_QUERIES[(i / 10) % KEYWORD_QUERIES.length]!
        : questions[Math.floor(queryRandom() * questions.length)]!,
    );
    for (const q of queries.slice(0, 20))
      await searchNotes(deps, actor, { query: q, limit: 10, min_relevance: 0.5 });
    const profile = PROFILE ? instrument(engine) : undefined;
    const latencies: number[] = [];
    const found: string[] = [];
    for (const q of queries) {
      // Every search embeds its query, as a search with a new query does (repeats would reuse the vector).
      deps.search.queryVectors.forget();
      const t = performance.now();
      const answer = await searchNotes(deps, actor, { query: q, limit: 10, min_relevance: 0.5 });
      latencies.push(performance.now() - t);
      found.push(answer.results.map((r) => r.note_id).join());
    }
    profile?.restore();
    // The exact store's baseline (bench/search/baseline-exact-store.ts), the same queries right after, warmed up
    // like the store; it must find the same notes.
    const store = engine.store;
    const baseline =
      store.kind === 'exact'
        ? createBaselineExactStore(createBaselineVectorCache(deps.config.search.exactCacheBytes))
        : undefined;
    const baselineLatencies: number[] = [];
    if (baseline) {
      engine.store = baseline;
      try {
        for (const q of queries.slice(0, 20))
          await searchNotes(deps, actor, { query: q, limit: 10, min_relevance: 0.5 });
        for (const [i, q] of queries.entries()) {
          deps.search.queryVectors.forget();
          const t = performance.now();
          const answer = await searchNotes(deps, actor, { query: q, limit: 10, min_relevance: 0.5 });
          baselineLatencies.push(performance.now() - t);
          if (answer.results.map((r) => r.note_id).join() !== found[i])
            throw new Error(`the exact store and its baseline found different notes for "${q}"`);
        }
      } finally {
        engine.store = store;
      }
    }
    return {
      profile: profile?.report(
        latencies.reduce((a, b) => a + b, 0),
        queries.length,
      ),
      meeting,
      cached: cache ? { hits: cache.hits, misses: cache.misses } : undefined,
      dialect,
      vectorStore: engine.store.kind,
      notes: NOTES,
      chunks,
      indexSeconds,
      chunksPerSecond: chunks / indexSeconds,
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      max: Math.max(...latencies),
      baseline: baseline
        ? {
            p50: percentile(baselineLatencies, 50),
            p95: percentile(baselineLatencies, 95),
            max: Math.max(...baselineLatencies),
          }
        : undefined,
      loadAverage: os.loadavg()[0]!,
    };
  } finally {
    await database.close();
  }
}

/**
 * Indexes MEETINGS QMSum meetings of about an hour (9,000 words at 150 a minute, the ones closest to that) as
 * notes, one at a time, with the embedder as the service runs it (no vector cache): chunk, embed, write.
 */
async function timeOneHourMeetings(
  deps: ReturnType<typeof benchDeps>,
  actor: Awaited<ReturnType<typeof benchActor>>,
) {
  const space = { accountId: actor.accountId, mode: 'live' as Mode };
  const words = (m: Meeting) => m.turns.reduce((a, t) => a + countWords(t.content), 0);
  const chosen = [...meetings]
    .sort((a, b) => Math.abs(words(a) - 9_000) - Math.abs(words(b) - 9_000))
    .slice(0, MEETINGS);
  const runs: { meeting: string; words: number; passages: number; seconds: number }[] = [];
  for (const m of chosen) {
    const segments = segmentsOf(m).filter((s) => s.text.trim());
    const id = newId('note');
    await insertReadyNote(deps.db, actor.accountId, {
      id,
      title: `Meeting ${m.name}`,
      summary: '',
      segments,
      createdAt: new Date().toISOString(),
    });
    const t = performance.now();
    await indexNote(deps, space, id);
    const seconds = (performance.now() - t) / 1000;
    const passages = Number(
      (
        await deps.db
          .selectFrom('search_chunks' as never)
          .where('note_id' as never, '=', id as never)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    runs.push({ meeting: m.name, words: words(m), passages, seconds });
    process.stderr.write(
      `  one-hour meeting ${m.name}: ${words(m)} words, ${passages} chunks, ${seconds.toFixed(2)} s\n`,
    );
  }
  return runs;
}

/** Wraps the repository's reads, the vector store and the query embedding with timers (PROFILE=1). */
function instrument(engine: SearchEngine) {
  const spent = new Map<string, number>();
  const restores: (() => void)[] = [];
  const wrap = <T extends object>(target: T, key: keyof T & string, label: string) => {
    const original = target[key] as unknown as (...a: unknown[]) => Promise<unknown>;
    (target as Record<string, unknown>)[key] = async function (this: unknown, ...a: unknown[]) {
      const t = performance.now();
      try {
        return await original.apply(this, a);
      } finally {
        spent.set(label, (spent.get(label) ?? 0) + performance.now() - t);
      }
    };
    restores.push(() => {
      (target as Record<string, unknown>)[key] = original;
    });
  };
  for (const key of [
    'documentFrequencies',
    'keywordChunks',
    'notesForResults',
    'chunkEmbeddings',
    'chunksByIds',
    'notesWithTerm',
    'countNotes',
  ] as const)
    wrap(searchRepo, key, `repo.${key}`);
  wrap(engine.store, 'search', 'vector store KNN');
  if (engine.embedder) wrap(engine.embedder, 'embed', 'query embedding');
  return {
    restore: () => {
      for (const r of restores.reverse()) r();
    },
    /** Mean ms per query of each part; keyword and vector retrieval overlap in time (they run together). */
    report: (totalMs: number, n: number) => {
      const parts = [...spent.entries()].map(([k, v]) => [k, v / n] as const).sort((a, b) => b[1] - a[1]);
      return { totalMs: totalMs / n, parts };
    },
  };
}

const rows = [];
for (const dialect of DIALECTS) rows.push(await runDialect(dialect));
for (const r of rows) {
  if (r.meeting?.length) {
    const med = [...r.meeting].sort((a, b) => a.seconds - b.seconds)[Math.floor(r.meeting.length / 2)]!;
    const passages = r.meeting.reduce((a, m) => a + m.passages, 0);
    const seconds = r.meeting.reduce((a, m) => a + m.seconds, 0);
    process.stdout.write(
      `one-hour meeting (${r.meeting.map((m) => `${m.meeting} ${m.words} words ${m.passages} chunks ${m.seconds.toFixed(2)} s`).join('; ')}): ` +
        `median ${med.seconds.toFixed(2)} s (goal < 3 s); ${(passages / seconds).toFixed(1)} passages/s\n`,
    );
  }
  if (r.cached)
    process.stdout.write(
      `[${r.dialect}] passage vectors: ${r.cached.hits} cached, ${r.cached.misses} embedded\n`,
    );
  if (r.profile) {
    process.stdout.write(`[${r.dialect}] mean per search ${r.profile.totalMs.toFixed(1)} ms; of which:\n`);
    for (const [k, v] of r.profile.parts) process.stdout.write(`  ${k.padEnd(24)} ${v.toFixed(1)} ms\n`);
  }
}
process.stdout.write(
  [
    `${NOTES} notes of ~${WORDS} words, one account, builtin embedder, ${QUERIES} queries`,
    '',
    '| database   | vector store | chunks  | indexing chunks/s | search p50 | search p95 | max     |',
    '|------------|--------------|---------|-------------------|------------|------------|---------|',
    ...rows.flatMap((r) => [
      `| ${r.dialect.padEnd(10)} | ${r.vectorStore.padEnd(12)} | ${String(r.chunks).padEnd(7)} | ${r.chunksPerSecond.toFixed(0).padEnd(17)} | ${r.p50.toFixed(1).padStart(7)} ms | ${r.p95.toFixed(1).padStart(7)} ms | ${r.max.toFixed(0).padStart(4)} ms |`,
      ...(r.baseline
        ? [
            `| ${r.dialect.padEnd(10)} | ${'baseline'.padEnd(12)} | ${''.padEnd(7)} | ${''.padEnd(17)} | ${r.baseline.p50.toFixed(1).padStart(7)} ms | ${r.baseline.p95.toFixed(1).padStart(7)} ms | ${r.baseline.max.toFixed(0).padStart(4)} ms |`,
          ]
        : []),
    ]),
    '',
    `load average at the end of each database's searches: ${rows.map((r) => `${r.dialect} ${r.loadAverage.toFixed(1)}`).join(', ')}`,
    '',
  ].join('\n'),
);
