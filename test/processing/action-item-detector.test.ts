import { describe, expect, it } from 'vitest';
import {
  createDetector,
  defaultDetector,
  hashFeature,
} from '../../src/features/processing/action-items/detector.ts';
import {
  FEATURES_VERSION,
  sentenceFeatures,
} from '../../src/features/processing/action-items/detector-features.ts';
import { splitSentences } from '../../src/features/processing/sentences.ts';
import { segments } from './analysis-fixtures.ts';

const NAMES = ['Alice Chen', 'Bob Smith', 'Maria Lopez'];
const sentencesOf = (turns: [string, string][]) => splitSentences(segments(turns));

describe('action-item detector: features', () => {
  it('hashes a feature name to the same bucket on every run', () => {
    expect(hashFeature('w:send', 1 << 18)).toBe(hashFeature('w:send', 1 << 18));
    expect(hashFeature('w:send', 1 << 18)).not.toBe(hashFeature('w:sent', 1 << 18));
    expect(hashFeature('anything', 1024)).toBeLessThan(1024);
  });

  it("reads words, speakers' names as <name>, cues and the reply that follows", () => {
    const [ask] = sentenceFeatures(
      sentencesOf([
        ['Speaker 1', 'Maria, can you send the deck by Friday?'],
        ['Speaker 3', 'Sure, will do.'],
      ]),
      { names: NAMES },
    );
    expect(ask).toEqual(
      expect.arrayContaining([
        'w:<name>',
        'w:send',
        'b:you send',
        's0:<name>',
        'cue:ask',
        'mention',
        'addressed',
        'question',
        'next_accept',
        'n0:sure',
      ]),
    );
    expect(ask).not.toContain('w:maria');
  });

  it('stays linear on long and repetitive input', () => {
    const long = `${'you will '.repeat(5000)}maybe if we send ${'uh, '.repeat(5000)}`;
    const [features] = sentenceFeatures(sentencesOf([['Speaker 1', long]]), { names: NAMES });
    expect(features).toContain('cue:you_will');
  });
});

describe('action-item detector: model', () => {
  it('ranks commitments and requests above chit-chat with the shipped weights', () => {
    const sentences = sentencesOf([
      ['Speaker 1', "I'll send the minutes to everyone after the meeting."],
      ['Speaker 2', 'That was a really funny dog, I like dogs.'],
      ['Speaker 3', 'Bob, could you look into the battery costs before the next meeting?'],
      ['Speaker 2', 'Yeah, sure.'],
    ]);
    const [send, dog, battery, yes] = defaultDetector().score(sentences, { names: NAMES });
    expect(send).toBeGreaterThan(dog!);
    expect(battery).toBeGreaterThan(dog!);
    expect(battery).toBeGreaterThan(yes!);
  });

  it('refuses weights trained for other features, and adds sentence vectors only when the weights have them', () => {
    const base = {
      version: 1,
      buckets: 1024,
      bias: 0,
      sparse: {},
      keepThreshold: 0.5,
      addThreshold: 0.9,
    };
    expect(() => createDetector({ ...base, features: FEATURES_VERSION + 1 })).toThrow(/train:action-items/);
    const sentences = sentencesOf([['Speaker 1', 'Hello there.']]);
    const plain = createDetector({ ...base, features: FEATURES_VERSION });
    const withVectors = createDetector({ ...base, features: FEATURES_VERSION, dense: [1, 1] });
    expect(plain.score(sentences, { names: NAMES }, [[1, 1]])).toEqual([0.5]);
    expect(withVectors.score(sentences, { names: NAMES }, [[1, 1]])[0]).toBeCloseTo(1 / (1 + Math.exp(-2)));
    expect(withVectors.score(sentences, { names: NAMES })).toEqual([0.5]);
  });
});
