import {
  answerExtractively,
  DEFAULT_EXTRACTIVE,
  type ExtractiveOptions,
} from '../../src/features/ask/extractive.ts';
import { loadAskMeetings } from './data.ts';
import { rouge } from './rouge.ts';

/** Grid over the answerer's settings on the tuning split only (the held-out split is never read here). */
const meetings = loadAskMeetings().filter((m) => m.split === 'tune');
const grid: Partial<ExtractiveOptions>[] = JSON.parse(process.argv[2] ?? '[{}]');
for (const change of grid) {
  const options = { ...DEFAULT_EXTRACTIVE, ...change };
  let n = 0,
    r1 = 0,
    r2 = 0,
    cit = 0,
    inSpan = 0;
  for (const m of meetings) {
    const starts = m.note.segments.map((s) => s.start_ms);
    for (const q of m.queries) {
      const a = answerExtractively(q.query, [m.note], options);
      const r = rouge(q.answer, a.answer.replace(/\s*\[\d+\]/g, ''));
      n++;
      r1 += r.rouge1;
      r2 += r.rouge2;
      for (const c of a.citations) {
        cit++;
        const turn = starts.indexOf(c.start_ms!);
        if (q.spans.some(([lo, hi]) => turn >= lo && turn <= hi)) inSpan++;
      }
    }
  }
  console.log(
    JSON.stringify(change),
    'R-1',
    ((100 * r1) / n).toFixed(2),
    'R-2',
    ((100 * r2) / n).toFixed(2),
    'prec',
    (inSpan / cit).toFixed(3),
  );
}
