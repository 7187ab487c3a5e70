import {
  type Answer,
  answerExtractively,
  DEFAULT_EXTRACTIVE,
  type ExtractiveOptions,
} from '../../src/features/ask/extractive.ts';
import { cleanText } from '../../src/features/processing/sentences.ts';
import { dot } from '../../src/features/search/embedders/embedder.ts';
import { STOPWORDS, stem, words } from '../../src/features/search/text/tokens.ts';
import {
  type AskMeeting,
  type AskQuery,
  citedTurns,
  loadAskMeetings,
  type Split,
  withoutMarkers,
} from './data.ts';
import { passageVectors } from './passage-vectors.ts';
import { rouge } from './rouge.ts';

/**
 * npm run bench:ask: QMSum specific queries answered with note_id (the paper's task), scored as the paper did.
 * ASK_SPLIT=tune|heldout|both (default both); the tuning split is what the answerer's settings were tuned on.
 * Meetings are scored when their passage vectors are cached; ASK_EMBED=1 embeds the missing ones first (slow).
 */

interface Totals {
  n: number;
  r1: number;
  r2: number;
  rl: number;
  cited: number;
  citations: number;
  inSpan: number;
  verbatim: number;
  answered: number;
  words: number;
}

const empty = (): Totals => ({
  n: 0,
  r1: 0,
  r2: 0,
  rl: 0,
  cited: 0,
  citations: 0,
  inSpan: 0,
  verbatim: 0,
  answered: 0,
  words: 0,
});

const normalise = (s: string) => s.replace(/\s+/g, ' ').trim();

function scoreAnswer(t: Totals, meeting: AskMeeting, q: AskQuery, a: Answer) {
  const text = withoutMarkers(a.answer);
  const r = rouge(q.answer, text);
  t.n++;
  t.r1 += r.rouge1;
  t.r2 += r.rouge2;
  t.rl += r.rougeL;
  t.words += text.split(/\s+/).filter(Boolean).length;
  if (a.answered) t.answered++;
  if (a.citations.length) t.cited++;
  const cited = citedTurns(meeting.note, q, a.citations);
  a.citations.forEach((c, i) => {
    const { turn, inSpan } = cited[i]!;
    t.citations++;
    if (inSpan) t.inSpan++;
    if (normalise(meeting.note.segments[turn]?.text ?? '').includes(normalise(c.quote))) t.verbatim++;
  });
}

/** The baseline: the 8 consecutive turns with the best BM25 score against the question, as the answer. */
export function bestWindow(meeting: AskMeeting, question: string, size = 8): string {
  const turns = meeting.note.segments.map((s) => cleanText(s.text));
  const docs: string[][] = [];
  for (let i = 0; i + size <= Math.max(turns.length, size); i++)
    docs.push(
      turns.slice(i, i + size).flatMap((t) =>
        words(t)
          .filter((w) => !STOPWORDS.has(w))
          .map(stem),
      ),
    );
  const terms = [
    ...new Set(
      words(question)
        .filter((w) => !STOPWORDS.has(w))
        .map(stem),
    ),
  ];
  const avg = docs.reduce((s, d) => s + d.length, 0) / Math.max(docs.length, 1);
  const df = new Map(terms.map((t) => [t, docs.filter((d) => d.includes(t)).length]));
  let best = 0;
  let bestScore = -1;
  docs.forEach((d, i) => {
    let score = 0;
    for (const t of terms) {
      const tf = d.filter((w) => w === t).length;
      if (!tf) continue;
      const idf = Math.log(1 + (docs.length - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
      score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * d.length) / avg));
    }
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  });
  return turns.slice(best, best + size).join(' ');
}

function report(label: string, t: Totals): string {
  const pct = (x: number) => (100 * x).toFixed(2);
  return `${label.padEnd(34)} n=${String(t.n).padStart(4)}  R-1 ${pct(t.r1 / t.n)}  R-2 ${pct(t.r2 / t.n)}  R-L ${pct(t.rl / t.n)}  words ${(t.words / t.n).toFixed(0)}${
    t.citations
      ? `  cit.prec ${(t.inSpan / t.citations).toFixed(3)}  >=1 cit ${(t.cited / t.n).toFixed(3)}  verbatim ${(t.verbatim / t.citations).toFixed(3)}  answered ${(t.answered / t.n).toFixed(3)}`
      : ''
  }`;
}

export async function runNoteIdBench(splits: Split[], options: ExtractiveOptions = DEFAULT_EXTRACTIVE) {
  const all = loadAskMeetings().filter((m) => splits.includes(m.split));
  // Passage similarities from the sentence model, for the meetings whose vectors are cached (passage-vectors.ts).
  const vectors = await passageVectors(all, { onlyCached: process.env.ASK_EMBED !== '1' });
  const lines: string[] = [];
  const times: number[] = [];
  for (const split of splits) {
    const meetings = all.filter((x) => x.split === split && vectors.passages.has(x.name));
    const ours = empty();
    const base = empty();
    for (const m of meetings) {
      const p = vectors.passages.get(m.name)!;
      for (const q of m.queries) {
        const qv = vectors.questions.get(`${m.name}\n${q.query}`)!;
        const note = {
          ...m.note,
          passages: p.vectors.map((v, i) => ({ start_ms: p.starts[i]!, similarity: dot(qv, v) })),
        };
        const started = performance.now();
        const answer = answerExtractively(q.query, [note], options);
        times.push(performance.now() - started);
        scoreAnswer(ours, m, q, answer);
        scoreAnswer(base, m, q, { answered: true, answer: bestWindow(m, q.query), citations: [] });
      }
    }
    const label = split === 'tune' ? 'tuning split (tuned on)' : 'held-out split (never tuned on)';
    lines.push(`${label}, note_id given, ${meetings.length} meetings:`);
    lines.push(report('  extractive answerer', ours));
    lines.push(report('  best BM25 window of 8 turns', base));
    lines.push(`  ratio R-1 answerer / baseline: ${(ours.r1 / base.r1).toFixed(2)}`);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
  lines.push(
    `answerer time per question (one meeting, first split included): p50 ${at(0.5)} ms, p95 ${at(0.95)} ms`,
  );
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const which = process.env.ASK_SPLIT ?? 'both';
  const splits: Split[] = which === 'both' ? ['tune', 'heldout'] : [which as Split];
  for (const line of await runNoteIdBench(splits)) console.log(line);
}
