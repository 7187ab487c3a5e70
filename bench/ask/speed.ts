/**
 * Ask speed (npm run bench:ask-speed): NOTES notes (default 10,000) of about 300 words in one account, made of
 * consecutive QMSum turns, written as processed notes and indexed by the product's own indexNote (chunks, vectors,
 * keyword entries); then QUERIES QMSum questions asked over the whole space through askNotes, the service behind
 * POST /v1/ask (search, the notes' segments, passage similarities, the answerer in the processing pool), offline.
 * Reports p50/p95 per question. EMBEDDER (default builtin, all-MiniLM-L6-v2) picks the index's sentence model;
 * embedding 10,000 notes with it takes about an hour here, EMBEDDER=glove a few minutes.
 */

import type { Db, Mode } from '../../src/db/schema.ts';
import { askNotes } from '../../src/features/ask/ask.service.ts';
import { cleanText } from '../../src/features/search/chunk-note.ts';
import { indexNote } from '../../src/features/search/index-note.ts';
import { searchNotes } from '../../src/features/search/search.service.ts';
import type { TranscriptSegment } from '../../src/features/transcripts/parse-transcript.ts';
import { renderTranscript } from '../../src/features/transcripts/render-transcript.ts';
import { newId } from '../../src/lib/ids.ts';
import { mulberry32 } from '../../src/lib/prng.ts';
import { benchActor, benchDeps, openBenchDatabase, percentile } from '../search/setup.ts';
import { loadMeetings, segmentsOf } from '../search-quality/qmsum.ts';

const NOTES = Number(process.env.NOTES ?? 10_000);
const QUERIES = Number(process.env.QUERIES ?? 100);
const WORDS = 300;

const meetings = loadMeetings();
const random = mulberry32(42);
const countWords = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** About WORDS words of consecutive turns from a random meeting, with times as a recording would have them. */
function makeSegments(): TranscriptSegment[] {
  const m = meetings[Math.floor(random() * meetings.length)]!;
  const turns = segmentsOf(m)
    .map((s) => ({ speaker: s.speaker, text: cleanText(s.text) }))
    .filter((s) => s.text);
  let i = Math.floor(random() * Math.max(1, turns.length - 40));
  const segments: TranscriptSegment[] = [];
  let words = 0;
  let t = 0;
  while (words < WORDS && i < turns.length) {
    const turn = turns[i++]!;
    const n = countWords(turn.text);
    segments.push({ speaker: turn.speaker, start_ms: t, end_ms: t + n * 400, text: turn.text });
    t += n * 400 + 200;
    words += n;
  }
  return segments;
}

async function insertReadyNote(
  db: Db,
  accountId: string,
  id: string,
  segments: TranscriptSegment[],
  at: string,
) {
  const text = segments.map((s) => s.text).join(' ');
  await db
    .insertInto('notes')
    .values({
      id,
      account_id: accountId,
      mode: 'live',
      recording_id: null,
      status: 'ready',
      failure_reason: null,
      title: text.split(/\s+/).slice(0, 8).join(' '),
      title_locked: 0,
      summary: text.split(/\s+/).slice(0, 60).join(' '),
      transcript: renderTranscript(segments),
      duration_seconds: Math.ceil(segments.at(-1)!.end_ms / 1000),
      tags: '[]',
      created_at: at,
      updated_at: at,
    })
    .execute();
  await db
    .insertInto('segments')
    .values(
      segments.map((s, position) => ({
        ...s,
        note_id: id,
        account_id: accountId,
        mode: 'live' as Mode,
        position,
      })),
    )
    .execute();
}

const database = await openBenchDatabase('sqlite');
try {
  const env: Record<string, string> = process.env.EMBEDDER ? { EMBEDDER: process.env.EMBEDDER } : {};
  const deps = benchDeps(database, env);
  const actor = await benchActor(database);
  const space = { accountId: actor.accountId, mode: 'live' as Mode };
  const ids: string[] = [];
  process.stderr.write(`inserting ${NOTES} notes…\n`);
  for (let b = 0; b < NOTES; b += 100) {
    await database.db.transaction().execute(async (trx) => {
      for (let j = 0; j < Math.min(100, NOTES - b); j++) {
        const id = newId('note');
        ids.push(id);
        const at = new Date(Date.UTC(2025, 0, 1) + (b + j) * 3_600_000).toISOString();
        await insertReadyNote(trx, actor.accountId, id, makeSegments(), at);
      }
    });
  }
  process.stderr.write(`indexing with ${process.env.EMBEDDER ?? 'builtin'}…\n`);
  const started = performance.now();
  // Notes indexed as many at a time as the job worker runs jobs, so the sentence model's threads all work.
  let next = 0;
  const indexer = async () => {
    for (let i = next++; i < ids.length; i = next++) {
      await indexNote(deps, space, ids[i]!);
      if ((i + 1) % 1000 === 0)
        process.stderr.write(
          `  ${i + 1}/${ids.length} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`,
        );
    }
  };
  await Promise.all(Array.from({ length: deps.config.worker.concurrency }, indexer));
  const questions = meetings.flatMap((m) => m.queries.map((q) => q.query));
  const queryRandom = mulberry32(7);
  const asked = Array.from(
    { length: QUERIES },
    () => questions[Math.floor(queryRandom() * questions.length)]!,
  );
  // Warm-up: the processing thread, the sentence model and the first read of the space's vectors.
  for (const q of asked.slice(0, 5))
    await askNotes(deps, actor, { question: q, max_citations: 8, from: undefined, to: undefined });
  const times: number[] = [];
  const searchTimes: number[] = [];
  let answered = 0;
  for (const q of asked) {
    // Each question embeds its text, as a new question does (a repeat would reuse the vector).
    deps.search.queryVectors.forget();
    const t = performance.now();
    const a = await askNotes(deps, actor, { question: q, max_citations: 8, from: undefined, to: undefined });
    times.push(performance.now() - t);
    if (a.answered) answered++;
    // The search alone, as ask runs it (after the question, so ask's own time is not helped by it).
    deps.search.queryVectors.forget();
    const s = performance.now();
    await searchNotes(deps, actor, { query: q, limit: 5, min_relevance: 0.5 });
    searchTimes.push(performance.now() - s);
  }
  process.stdout.write(
    `${NOTES} notes of ~${WORDS} words, one account, embedder ${process.env.EMBEDDER ?? 'builtin'}, ${QUERIES} QMSum questions over the whole space (SQLite)\n` +
      `ask p50 ${percentile(times, 50).toFixed(0)} ms, p95 ${percentile(times, 95).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms, answered ${answered}/${QUERIES}\n` +
      `of which the search alone: p50 ${percentile(searchTimes, 50).toFixed(0)} ms, p95 ${percentile(searchTimes, 95).toFixed(0)} ms\n`,
  );
  await deps.close();
} finally {
  await database.close();
}
