import {
  type AskNote,
  answerExtractively,
  DEFAULT_EXTRACTIVE,
  type ExtractiveOptions,
} from '../../src/features/ask/extractive.ts';
import { dot } from '../../src/features/search/embedders/embedder.ts';
import { citedTurns, loadAskMeetings, withoutMarkers } from './data.ts';
import { passageVectors } from './passage-vectors.ts';
import { rouge } from './rouge.ts';

/**
 * Grid over the answerer's settings on the tuning split only (the held-out split is never read here):
 * `npx tsx bench/ask/tune.ts '[{"wordBudget":80}, …]'`. With ASK_SEMANTIC=1, only the tuning meetings whose
 * passage vectors are cached, with the sentence model's passage similarities.
 */
let meetings = loadAskMeetings().filter((m) => m.split === 'tune');
const semantic = process.env.ASK_SEMANTIC === '1';
const vectors = semantic ? await passageVectors(meetings, { onlyCached: true }) : undefined;
if (vectors) meetings = meetings.filter((m) => vectors.passages.has(m.name));
const grid: Partial<ExtractiveOptions>[] = JSON.parse(process.argv[2] ?? '[{}]');
console.log(`${meetings.length} meetings`);
for (const change of grid) {
  const options = { ...DEFAULT_EXTRACTIVE, ...change };
  let n = 0;
  let r1 = 0;
  let r2 = 0;
  let cit = 0;
  let inSpan = 0;
  for (const m of meetings) {
    for (const q of m.queries) {
      let note: AskNote = m.note;
      if (vectors) {
        const p = vectors.passages.get(m.name)!;
        const qv = vectors.questions.get(`${m.name}\n${q.query}`)!;
        note = {
          ...m.note,
          passages: p.vectors.map((v, i) => ({ start_ms: p.starts[i]!, similarity: dot(qv, v) })),
        };
      }
      const a = answerExtractively(q.query, [note], options);
      const r = rouge(q.answer, withoutMarkers(a.answer));
      n++;
      r1 += r.rouge1;
      r2 += r.rouge2;
      const cited = citedTurns(note, q, a.citations);
      cit += cited.length;
      inSpan += cited.filter((c) => c.inSpan).length;
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
