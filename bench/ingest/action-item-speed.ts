import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sentenceModel } from '../../src/features/processing/action-items/sentence-model.ts';
import {
  analyzeTranscript,
  analyzeTranscriptWithModel,
  createSpeakerDirectory,
} from '../../src/features/processing/analyze-builtin.ts';
import { sentencesToEmbed } from '../../src/features/processing/extract-action-items.ts';
import { splitSentences } from '../../src/features/processing/sentences.ts';
import { loadMeeting, meetingNames, toSegments } from './qmsum.ts';

/**
 * `npx tsx bench/ingest/action-item-speed.ts`: what the sentence vectors cost the analysis, in this thread as in
 * a processing thread. For the QMSum meetings of 50–70 minutes, back to back per meeting: the analysis without
 * vectors (EMBEDDER=glove/none) and with them (EMBEDDER=builtin: the rules' candidate sentences embedded, one
 * intra-op thread), and how many sentences were embedded; plus the one-off load of the model in a fresh thread.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const settings = {
  modelsDir: process.env.MODELS_DIR ?? path.join(ROOT, 'data/models'),
  precision: 'int8' as const,
};

const started = performance.now();
if (!(await sentenceModel(settings))) throw new Error('the sentence model could not be loaded');
const loadMs = performance.now() - started;

const rows: {
  meeting: string;
  minutes: number;
  sentences: number;
  embedded: number;
  words: number;
  vectors: number;
}[] = [];
for (const name of meetingNames()) {
  const segments = toSegments(loadMeeting(name).turns);
  const minutes = (segments.at(-1)?.end_ms ?? 0) / 60_000;
  if (minutes < 50 || minutes > 70) continue;
  const speakers = [...new Set(segments.map((s) => s.speaker))].map((label) => ({ label, name: label }));
  const input = { segments, speakers, createdAt: '2026-03-02T10:00:00.000Z' };
  const sentences = splitSentences(segments);
  const embedded = sentencesToEmbed(sentences, createSpeakerDirectory(speakers)).length;
  let t = performance.now();
  analyzeTranscript(input);
  const words = performance.now() - t;
  t = performance.now();
  await analyzeTranscriptWithModel({ ...input, sentenceModel: settings });
  const vectors = performance.now() - t;
  rows.push({ meeting: name, minutes, sentences: sentences.length, embedded, words, vectors });
}

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const line = (name: string, xs: number[]) =>
  `${name}: p50 ${quantile(xs, 0.5).toFixed(0)} ms, p95 ${quantile(xs, 0.95).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms`;
process.stdout.write(
  [
    `model load in this thread (first analysis with vectors): ${loadMs.toFixed(0)} ms`,
    `${rows.length} meetings of 50–70 min: sentences p50 ${quantile(
      rows.map((r) => r.sentences),
      0.5,
    )}, embedded p50 ${quantile(
      rows.map((r) => r.embedded),
      0.5,
    )}, max ${Math.max(...rows.map((r) => r.embedded))}`,
    line(
      'analysis, words only',
      rows.map((r) => r.words),
    ),
    line(
      'analysis with sentence vectors',
      rows.map((r) => r.vectors),
    ),
    `ratio with/without, median of per-meeting ratios: ${quantile(
      rows.map((r) => r.vectors / r.words),
      0.5,
    ).toFixed(2)}`,
    '',
  ].join('\n'),
);
