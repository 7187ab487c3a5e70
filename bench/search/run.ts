/**
 * Search speed (npm run bench:search): NOTES notes (default 10,000) of about WORDS words (default 1,500) in one
 * account, built from real meeting speech (QMSum turns, shuffled into new notes), indexed with the builtin
 * embedder; then QUERIES searches (QMSum questions and short keyword queries) through the search service.
 * Reports indexing throughput (chunks/s) and p50/p95 search latency for SQLite (sqlite-vec) and PostgreSQL
 * (keyword-only without pgvector). Options by environment: NOTES, WORDS, QUERIES, DIALECTS=sqlite,postgres,
 * BENCH_DATABASE_URL (PostgreSQL server; default TEST_DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres).
 */
import { sql } from 'kysely';
import type { Dialect, Mode } from '../../src/db/schema.ts';
import { renderTranscript } from '../../src/features/notes/notes.view.ts';
import { indexNote } from '../../src/features/search/index-note.ts';
import { searchNotes } from '../../src/features/search/search.service.ts';
import { getSearchEngine } from '../../src/features/search/search-engine.ts';
import { newId } from '../../src/lib/ids.ts';
import { mulberry32 } from '../../src/lib/prng.ts';
import { loadMeetings, segmentsOf } from '../search-quality/qmsum.ts';
import { benchActor, benchDeps, openBenchDatabase, percentile } from './setup.ts';

const NOTES = Number(process.env.NOTES ?? 10_000);
const WORDS = Number(process.env.WORDS ?? 1_500);
const QUERIES = Number(process.env.QUERIES ?? 200);
const DIALECTS = (process.env.DIALECTS ?? 'sqlite,postgres').split(',').map((d) => d.trim()) as Dialect[];

const meetings = loadMeetings();
const turns = meetings.flatMap((m) => segmentsOf(m).map((s) => ({ speaker: s.speaker, text: s.text })));
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

function makeNote(random: () => number): NoteSeed {
  const segments: NoteSeed['segments'] = [];
  let words = 0;
  let t = 0;
  let i = Math.floor(random() * turns.length);
  while (words < WORDS) {
    const turn = turns[i % turns.length]!;
    const n = turn.text.split(/\s+/).length;
    segments.push({ speaker: turn.speaker, start_ms: t, end_ms: t + n * 400, text: turn.text });
    t += n * 400 + 200;
    words += n;
    // Mostly consecutive turns (a conversation), sometimes a jump (a new topic).
    i = random() < 0.9 ? i + 1 : Math.floor(random() * turns.length);
  }
  const text = segments.map((s) => s.text).join(' ');
  return {
    title: text.split(/\s+/).slice(0, 8).join(' '),
    summary: text.split(/\s+/).slice(0, 60).join(' '),
    segments,
  };
}

async function runDialect(dialect: Dialect) {
  const database = await openBenchDatabase(dialect);
  try {
    const deps = benchDeps(database);
    const actor = await benchActor(database.db);
    const space = { accountId: actor.accountId, mode: 'live' as Mode };
    const engine = await getSearchEngine(deps);
    const random = mulberry32(42);
    const ids: string[] = [];
    process.stderr.write(`[${dialect}] inserting ${NOTES} notes…\n`);
    for (let b = 0; b < NOTES; b += 100) {
      const batch = Array.from({ length: Math.min(100, NOTES - b) }, () => makeNote(random));
      await database.db.transaction().execute(async (trx) => {
        for (const [j, note] of batch.entries()) {
          const id = newId('note');
          ids.push(id);
          const created = new Date(Date.UTC(2025, 0, 1) + (b + j) * 3_600_000).toISOString();
          await trx
            .insertInto('notes')
            .values({
              id,
              account_id: actor.accountId,
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
              created_at: created,
              updated_at: created,
            })
            .execute();
          await trx
            .insertInto('segments')
            .values(
              note.segments.map((s, position) => ({
                ...s,
                note_id: id,
                account_id: actor.accountId,
                mode: 'live' as Mode,
                position,
              })),
            )
            .execute();
        }
      });
    }
    process.stderr.write(`[${dialect}] indexing (vector store: ${engine.store.kind})…\n`);
    const started = performance.now();
    for (const [i, id] of ids.entries()) {
      await indexNote(deps, space, id);
      if ((i + 1) % 1000 === 0) process.stderr.write(`  ${i + 1}/${ids.length}\n`);
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
    const latencies: number[] = [];
    for (const q of queries) {
      const t = performance.now();
      await searchNotes(deps, actor, { query: q, limit: 10, min_relevance: 0.5 });
      latencies.push(performance.now() - t);
    }
    return {
      dialect,
      vectorStore: engine.store.kind,
      notes: NOTES,
      chunks,
      indexSeconds,
      chunksPerSecond: chunks / indexSeconds,
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      max: Math.max(...latencies),
    };
  } finally {
    await database.close();
  }
}

const rows = [];
for (const dialect of DIALECTS) rows.push(await runDialect(dialect));
process.stdout.write(
  [
    `${NOTES} notes of ~${WORDS} words, one account, builtin embedder, ${QUERIES} queries`,
    '',
    '| database   | vector store | chunks  | indexing chunks/s | search p50 | search p95 | max     |',
    '|------------|--------------|---------|-------------------|------------|------------|---------|',
    ...rows.map(
      (r) =>
        `| ${r.dialect.padEnd(10)} | ${r.vectorStore.padEnd(12)} | ${String(r.chunks).padEnd(7)} | ${r.chunksPerSecond.toFixed(0).padEnd(17)} | ${r.p50.toFixed(1).padStart(7)} ms | ${r.p95.toFixed(1).padStart(7)} ms | ${r.max.toFixed(0).padStart(4)} ms |`,
    ),
    '',
  ].join('\n'),
);
