import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type AskNote,
  answerExtractively,
  DEFAULT_EXTRACTIVE,
  type ExtractiveOptions,
  noteLocatorInput,
} from '../../src/features/ask/extractive.ts';
import {
  LOCATOR_FEATURES,
  type LocatorModel,
  type LocatorWeights,
  locatorChecksum,
  locatorFeatures,
  sigmoid,
} from '../../src/features/ask/locator.ts';
import { dot } from '../../src/features/search/embedders/embedder.ts';
import { type AskMeeting, citedTurns, loadAskMeetings, withoutMarkers } from './data.ts';
import { passageVectors } from './passage-vectors.ts';
import { rouge } from './rouge.ts';

/**
 * `npx tsx bench/ask/train-locator.ts [--write] ['{"l2":…}' grid of settings]`: fits the answerer's learned
 * locator (a logistic model per turn, target: the turn lies in one of the question's gold relevant spans) on
 * QMSum's tuning split only (the held-out split is never read here), reports each setting's R-1 and citation
 * precision with 4-fold cross-validation by meeting inside the tuning split, and with --write fits the first
 * setting on the whole tuning split and writes src/features/ask/locator-weights.json.
 * The weights with the sentence model are fitted on the tuning meetings whose passage vectors are cached
 * (bench/ask/.cache; `ASK_EMBED=1 npm run bench:ask` fills it); N=<n> keeps the first n of them (a fixed set while
 * the cache fills). LOCATOR_MODES=words,meaning,hybrid,subset picks what the cross-validation scores: words only, the
 * locator with the sentence model, the words-only locator plus the sentence model's closeness, the sentence-model
 * meetings asked without it.
 */

const WEIGHTS = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../src/features/ask/locator-weights.json',
);

interface Trial extends Partial<ExtractiveOptions> {
  /** L2 penalty per example on the weights (not the bias). */
  l2?: number;
}

interface Question {
  meeting: AskMeeting;
  query: string;
  answer: string;
  spans: [number, number][];
  note: AskNote;
}

const tuning = loadAskMeetings().filter((m) => m.split === 'tune');
const vectors = await passageVectors(tuning, { onlyCached: true });
const questionsOf = (m: AskMeeting, withMeaning: boolean): Question[] =>
  m.queries.map((q) => {
    const p = vectors.passages.get(m.name);
    const qv = vectors.questions.get(`${m.name}\n${q.query}`);
    const note: AskNote =
      withMeaning && p && qv
        ? {
            ...m.note,
            passages: p.vectors.map((v, i) => ({ start_ms: p.starts[i]!, similarity: dot(qv, v) })),
          }
        : m.note;
    return { meeting: m, query: q.query, answer: q.answer, spans: q.spans, note };
  });

interface Rows {
  x: number[][];
  y: number[];
}

function rowsOf(questions: readonly Question[]): Rows {
  const x: number[][] = [];
  const y: number[] = [];
  for (const q of questions) {
    const features = locatorFeatures(noteLocatorInput(q.query, q.note));
    features.forEach((f, t) => {
      x.push(f);
      y.push(q.spans.some(([lo, hi]) => t >= lo && t <= hi) ? 1 : 0);
    });
  }
  return { x, y };
}

/** L2-regularised logistic regression by Newton's method (a few dozen features: exact and deterministic). */
export function fitLogistic({ x, y }: Rows, l2: number): LocatorModel {
  const d = LOCATOR_FEATURES.length + 1;
  const w = new Float64Array(d);
  for (let iter = 0; iter < 25; iter++) {
    const g = new Float64Array(d);
    const h = Array.from({ length: d }, () => new Float64Array(d));
    for (let i = 0; i < x.length; i++) {
      const row = [1, ...x[i]!];
      let z = 0;
      for (let k = 0; k < d; k++) z += w[k]! * row[k]!;
      const p = sigmoid(z);
      const r = p * (1 - p);
      for (let a = 0; a < d; a++) {
        g[a]! += (p - y[i]!) * row[a]!;
        for (let b = a; b < d; b++) h[a]![b]! += r * row[a]! * row[b]!;
      }
    }
    for (let a = 0; a < d; a++) {
      for (let b = 0; b < a; b++) h[a]![b] = h[b]![a]!;
      if (a > 0) {
        g[a]! += l2 * x.length * w[a]!;
        h[a]![a]! += l2 * x.length;
      }
      h[a]![a]! += 1e-9;
    }
    const step = solve(h, g);
    let size = 0;
    for (let k = 0; k < d; k++) {
      w[k]! -= step[k]!;
      size = Math.max(size, Math.abs(step[k]!));
    }
    if (size < 1e-7) break;
  }
  const round = (v: number) => Math.round(v * 1e4) / 1e4;
  return { bias: round(w[0]!), weights: [...w.slice(1)].map(round) };
}

/** Gaussian elimination with partial pivoting. */
function solve(a: Float64Array[], b: Float64Array): Float64Array {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = c + 1; r < n; r++) {
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  const out = new Float64Array(n);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r]![n]!;
    for (let k = r + 1; k < n; k++) s -= m[r]![k]! * out[k]!;
    out[r] = s / m[r]![r]!;
  }
  return out;
}

function weightsOf(
  withMeaning: LocatorModel,
  withoutMeaning: LocatorModel,
  trainedOn: string,
): LocatorWeights {
  const body = { features: [...LOCATOR_FEATURES], withMeaning, withoutMeaning, trainedOn };
  return { ...body, sha256: locatorChecksum(body) };
}

interface Score {
  n: number;
  r1: number;
  citations: number;
  inSpan: number;
  cited: number;
}

function score(questions: readonly Question[], options: ExtractiveOptions, into: Score) {
  for (const q of questions) {
    const a = answerExtractively(q.query, [q.note], options);
    into.n++;
    into.r1 += rouge(q.answer, withoutMarkers(a.answer)).rouge1;
    if (a.citations.length) into.cited++;
    const cited = citedTurns(q.note, q, a.citations);
    into.citations += cited.length;
    into.inSpan += cited.filter((c) => c.inSpan).length;
  }
}

const semantic = tuning.filter((m) => vectors.passages.has(m.name)).slice(0, Number(process.env.N ?? 999));
const FOLDS = 4;
const foldOf = (m: AskMeeting) => tuning.findIndex((t) => t.name === m.name) % FOLDS;
const args = process.argv.slice(2);
const write = args.includes('--write');
const grid: Trial[] = JSON.parse(args.find((a) => a.startsWith('[')) ?? '[{}]');
const modes = (process.env.LOCATOR_MODES ?? 'words,meaning').split(',');
console.log(`tuning split: ${tuning.length} meetings, ${semantic.length} with passage vectors`);

for (const trial of grid) {
  const { l2 = 1e-4, ...change } = trial;
  for (const mode of modes) {
    // "subset": the meetings with passage vectors, asked without them (the same meetings as "meaning").
    const meetings = mode === 'words' ? tuning : semantic;
    if (!meetings.length) continue;
    const total: Score = { n: 0, r1: 0, citations: 0, inSpan: 0, cited: 0 };
    for (let fold = 0; fold < FOLDS; fold++) {
      const withMeaning = mode === 'meaning' || mode === 'hybrid';
      const train = meetings.filter((m) => foldOf(m) !== fold).flatMap((m) => questionsOf(m, withMeaning));
      const test = meetings.filter((m) => foldOf(m) === fold).flatMap((m) => questionsOf(m, withMeaning));
      // "hybrid": the words-only model for every note, the sentence model added by semanticWeight.
      const hybrid = mode === 'hybrid';
      const model = fitLogistic(
        rowsOf(hybrid ? train.map((q) => ({ ...q, note: q.meeting.note })) : train),
        l2,
      );
      const locatorWeights = weightsOf(model, model, 'cross-validation fold');
      score(test, { ...DEFAULT_EXTRACTIVE, ...change, locatorWeights }, total);
    }
    console.log(
      JSON.stringify(trial),
      mode.padEnd(7),
      `${meetings.length} meetings, 4-fold CV: R-1 ${((100 * total.r1) / total.n).toFixed(2)}`,
      `prec ${(total.inSpan / total.citations).toFixed(3)}`,
      `>=1 cit ${(total.cited / total.n).toFixed(3)}`,
    );
  }
}

if (write) {
  const l2 = grid[0]?.l2 ?? 1e-4;
  const withoutMeaning = fitLogistic(rowsOf(tuning.flatMap((m) => questionsOf(m, false))), l2);
  const withMeaning = semantic.length
    ? fitLogistic(rowsOf(semantic.flatMap((m) => questionsOf(m, true))), l2)
    : withoutMeaning;
  const trainedOn =
    `QMSum train, tuning split (every meeting but each fourth in name order): words only ${tuning.length} ` +
    `meetings, with the sentence model ${semantic.length}; l2 ${l2}`;
  fs.writeFileSync(
    WEIGHTS,
    `${JSON.stringify(weightsOf(withMeaning, withoutMeaning, trainedOn), null, 2)}\n`,
  );
  console.log(`wrote ${WEIGHTS}`);
}
