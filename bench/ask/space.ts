/**
 * Ask over the whole space (npm run bench:ask-space): the held-out QMSum meetings (ASK_SPACE=all: all 162) are
 * created as notes through the notes service, processed and indexed as the product does (bench/search-quality's
 * `ingest`, the builtin sentence model), then every held-out specific query is asked WITHOUT note_id through
 * askNotes, offline. Scored like bench:ask: ROUGE-1/2/L F1 against the gold answer, citation precision (a citation
 * in the query's own meeting, inside a gold span), the share of citations from the query's own meeting, and the
 * share of questions answered. Search's ranking was tuned on QMSum train, the answerer not on these meetings.
 */
import type { Mode } from '../../src/db/schema.ts';
import { askNotes } from '../../src/features/ask/ask.service.ts';
import { benchActor, benchDeps, openBenchDatabase, percentile } from '../search/setup.ts';
import { ingest, loadMeetings, turnAt } from '../search-quality/qmsum.ts';
import { loadAskMeetings, qmsumDir } from './data.ts';
import { rouge } from './rouge.ts';

const ask = loadAskMeetings();
const heldout = new Set(ask.filter((m) => m.split === 'heldout').map((m) => m.name));
const answers = new Map(ask.map((m) => [m.name, m.queries]));
const inSpace = process.env.ASK_SPACE === 'all' ? () => true : (name: string) => heldout.has(name);
const meetings = loadMeetings(qmsumDir()).filter((m) => inSpace(m.name));

const database = await openBenchDatabase('sqlite');
try {
  const deps = benchDeps(database);
  const actor = await benchActor(database);
  process.stderr.write(`ingesting ${meetings.length} meetings…\n`);
  const corpus = await ingest(deps, actor, meetings);
  process.stderr.write(`indexed ${corpus.chunks} passages in ${corpus.indexSeconds.toFixed(0)} s; asking…\n`);
  let n = 0;
  let r1 = 0;
  let r2 = 0;
  let rl = 0;
  let answered = 0;
  let citations = 0;
  let ownNote = 0;
  let inSpan = 0;
  const times: number[] = [];
  for (const [noteId, meeting] of corpus.meetingOf) {
    if (!heldout.has(meeting.name)) continue;
    const gold = answers.get(meeting.name)!;
    const starts = corpus.turnStarts.get(noteId)!;
    for (const [i, q] of meeting.queries.entries()) {
      const started = performance.now();
      const a = await askNotes(
        deps,
        { ...actor, mode: 'live' as Mode },
        {
          question: q.query,
          max_citations: 8,
          from: undefined,
          to: undefined,
        },
      );
      times.push(performance.now() - started);
      const r = rouge(gold[i]!.answer, a.answer.replace(/\s*\[\d+\]/g, ''));
      n++;
      r1 += r.rouge1;
      r2 += r.rouge2;
      rl += r.rougeL;
      if (a.answered) answered++;
      for (const c of a.citations) {
        citations++;
        if (c.note_id !== noteId) continue;
        ownNote++;
        const turn = turnAt(starts, c.start_ms ?? 0);
        if (q.spans.some(([lo, hi]) => turn >= lo && turn <= hi)) inSpan++;
      }
    }
  }
  const pct = (x: number) => ((100 * x) / n).toFixed(2);
  process.stdout.write(
    `held-out questions without note_id, space of ${meetings.length} meetings, n=${n}: R-1 ${pct(r1)}  R-2 ${pct(r2)}  R-L ${pct(rl)}  ` +
      `cit.prec ${(inSpan / citations).toFixed(3)}  own-meeting citations ${(ownNote / citations).toFixed(3)}  answered ${(answered / n).toFixed(3)}  ` +
      `p50 ${percentile(times, 50).toFixed(0)} ms  p95 ${percentile(times, 95).toFixed(0)} ms\n`,
  );
  await deps.close();
} finally {
  await database.close();
}
