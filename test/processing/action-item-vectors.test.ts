import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createDetector, defaultDetector } from '../../src/features/processing/action-items/detector.ts';
import { FEATURES_VERSION } from '../../src/features/processing/action-items/detector-features.ts';
import {
  type EmbedSentences,
  sentenceModel,
  sentenceModelSettings,
} from '../../src/features/processing/action-items/sentence-model.ts';
import {
  analyzeTranscript,
  analyzeTranscriptWithModel,
  createSpeakerDirectory,
} from '../../src/features/processing/analyze-builtin.ts';
import { extractActionItems, sentencesToEmbed } from '../../src/features/processing/extract-action-items.ts';
import { splitSentences } from '../../src/features/processing/sentences.ts';
import { dot } from '../../src/features/search/embedders/embedder.ts';
import { createEmbedder } from '../../src/features/search/embedders/load-embedder.ts';
import type { MiniLmEmbedder } from '../../src/features/search/embedders/minilm-embedder.ts';
import { MONDAY, PEOPLE, segments } from './analysis-fixtures.ts';

const speakers = createSpeakerDirectory(PEOPLE);
const TURNS: [string, string][] = [
  ['Speaker 1', 'So check out the corporate website.'],
  ['Speaker 2', 'That was a really funny dog, I like dogs.'],
  ['Speaker 1', "I'll send the minutes."],
  ['Speaker 2', 'We need to check the costs by Friday.'],
];
const sentences = splitSentences(segments(TURNS));

describe('action items: the detector with sentence vectors', () => {
  const config = loadConfig({ EMBEDDER: 'builtin' });
  const settings = sentenceModelSettings(config)!;
  let embed: EmbedSentences;
  let searchEmbedder: MiniLmEmbedder;

  beforeAll(async () => {
    // The search embedder builds the model file (once) and is the reference for the thread's own session.
    searchEmbedder = (await createEmbedder(config)) as MiniLmEmbedder;
    embed = (await sentenceModel(settings))!;
  }, 120_000);
  afterAll(async () => {
    await searchEmbedder?.close();
  });

  it('takes the sentence model from the configuration only with EMBEDDER=builtin', () => {
    expect(settings).toEqual({ modelsDir: config.search.modelsDir, precision: 'int8' });
    expect(sentenceModelSettings(loadConfig({ EMBEDDER: 'glove' }))).toBeUndefined();
  });

  it('embeds in the calling thread exactly as the search embedder does (the vectors it was trained on)', async () => {
    const texts = sentences.map((s) => s.text);
    const [mine, theirs] = [await embed(texts), await searchEmbedder.embed(texts, 'passage')];
    mine.forEach((v, i) => {
      expect(v).toHaveLength(384);
      expect(dot(v, theirs[i]!)).toBeGreaterThan(0.9999);
    });
    expect(await sentenceModel(settings)).toBe(embed);
  });

  it('embeds only the sentences the rules propose (the shipped vector weights add no items of their own)', () => {
    const shipped = defaultDetector().vectorWeights!;
    expect(shipped.addThreshold).toBeGreaterThan(1);
    expect(shipped.dense).toHaveLength(384);
    expect(shipped.keepCommittedThreshold).toBeGreaterThan(0);
    expect(shipped.keepCommittedThreshold).toBeLessThanOrEqual(shipped.keepThreshold);
    expect(sentencesToEmbed(sentences, speakers).map((i) => sentences[i]!.text)).toEqual([
      'So check out the corporate website.',
      "I'll send the minutes.",
      'We need to check the costs by Friday.',
    ]);
    expect(sentencesToEmbed(sentences, speakers, null)).toEqual([]);
  });

  it('analyses with vectors deterministically, keeping dated commitments whatever the score', async () => {
    const input = { segments: segments(TURNS), speakers: PEOPLE, createdAt: MONDAY };
    const first = await analyzeTranscriptWithModel({ ...input, sentenceModel: settings });
    expect(await analyzeTranscriptWithModel({ ...input, sentenceModel: settings })).toEqual(first);
    expect(first.action_items).toContainEqual({ text: 'Check the costs by Friday', due: '2026-11-27' });
    // No model asked for: the words-only analysis.
    expect(await analyzeTranscriptWithModel(input)).toEqual(analyzeTranscript(input));
  });

  it('falls back to words only when the model cannot be loaded', async () => {
    const input = { segments: segments(TURNS), speakers: PEOPLE, createdAt: MONDAY };
    // A models directory that cannot be one (a file): no model can be built there.
    const missing = { modelsDir: fileURLToPath(import.meta.url), precision: 'int8' as const };
    expect(await analyzeTranscriptWithModel({ ...input, sentenceModel: missing })).toEqual(
      analyzeTranscript(input),
    );
  });
});

describe('action items: vetoing commitments', () => {
  const withScores = (scores: number[], keepCommitted: number) =>
    extractActionItems(sentences, speakers, MONDAY, {
      scores,
      thresholds: { keep: 0.5, add: 2, keepCommitted },
    });

  it('drops a commitment below its own threshold, never one with a due date', () => {
    expect(withScores([0.1, 0.1, 0.1, 0.1], 0).map((i) => i.text)).toEqual([
      'Send the minutes',
      'Check the costs by Friday',
    ]);
    expect(withScores([0.1, 0.1, 0.1, 0.1], 0.2).map((i) => i.text)).toEqual(['Check the costs by Friday']);
    expect(withScores([0.1, 0.1, 0.3, 0.1], 0.2).map((i) => i.text)).toEqual([
      'Send the minutes',
      'Check the costs by Friday',
    ]);
  });

  it('never drops work handed to someone by name or role, however low it scores', () => {
    const named = splitSentences(
      segments([
        ['Speaker 1', 'Maria, could you share the slides with the team?'],
        ['Speaker 2', 'Maria is going to prepare the demo for the customer.'],
        ['Speaker 3', "I'll send the minutes."],
        ['Speaker 1', 'Or you need to get the user to plug it in.'],
      ]),
    );
    const items = extractActionItems(named, speakers, MONDAY, {
      scores: [0.001, 0.001, 0.001, 0.001],
      thresholds: { keep: 0.5, add: 2, keepCommitted: 0.2 },
    });
    expect(items).toEqual([
      { text: 'Share the slides with the team', assignee: 'Maria Lopez' },
      { text: 'Prepare the demo for the customer', assignee: 'Maria Lopez' },
    ]);
    // "Or" opening a sentence is nobody's name: the request is to whoever is addressed, and judged.
    const rulesAlone = extractActionItems(named, speakers, MONDAY, { detector: null });
    expect(rulesAlone.at(-1)?.assignee).not.toBe('Or');
  });

  it('judges sentences by the vector weights and their thresholds once vectors are given', () => {
    const base = { version: 1, features: FEATURES_VERSION, buckets: 1024, sparse: {} };
    const words = { ...base, bias: 5, keepThreshold: 0.5, addThreshold: 2 };
    const vectors = {
      ...base,
      bias: -5,
      dense: [1, 1],
      keepThreshold: 0.5,
      addThreshold: 2,
      keepCommittedThreshold: 0.5,
    };
    const detector = createDetector(words, vectors);
    expect(detector.thresholds(true).keepCommitted).toBe(0.5);
    expect(detector.thresholds(false).keepCommitted).toBe(0);
    const v = [0, 0];
    const all = sentences.map(() => v);
    const [p] = detector.score(sentences, { names: [] }, all);
    expect(p).toBeLessThan(0.01);
    expect(detector.score(sentences, { names: [] })[0]).toBeGreaterThan(0.99);
    // Words-only: everything kept; with vectors (all scoring low): only the dated commitment.
    expect(extractActionItems(sentences, speakers, MONDAY, { detector }).map((i) => i.text)).toEqual([
      'Check out the corporate website',
      'Send the minutes',
      'Check the costs by Friday',
    ]);
    expect(
      extractActionItems(sentences, speakers, MONDAY, { detector, vectors: all }).map((i) => i.text),
    ).toEqual(['Check the costs by Friday']);
  });
});
