import { describe, expect, it } from 'vitest';
import { type AskNote, isSummaryQuestion, noteLocatorInput } from '../../src/features/ask/extractive.ts';
import {
  LOCATOR_FEATURES,
  LOCATOR_WEIGHTS,
  type LocatorWeights,
  largest,
  locatorChecksum,
  locatorFeatures,
  turnRelevance,
} from '../../src/features/ask/locator.ts';

const MEETING: AskNote = {
  id: 'note_l',
  title: 'Design review',
  created_at: '2026-03-01T10:00:00.000Z',
  segments: (
    [
      ['Anna', 'Good morning everyone.'],
      ['Ben', 'The weather was awful today.'],
      ['Anna', 'The remote control buttons should be larger, and the buttons should glow.'],
      ['Carl', 'Rubber buttons on the remote feel cheap to me.'],
      ['Ben', 'Lunch is at noon.'],
    ] as [string, string][]
  ).map(([speaker, text], i) => ({ speaker, text, start_ms: i * 5000, end_ms: i * 5000 + 4000 })),
};

const column = (rows: number[][], name: (typeof LOCATOR_FEATURES)[number]) =>
  rows.map((r) => r[LOCATOR_FEATURES.indexOf(name)]!);

describe('locatorFeatures', () => {
  it('describes each turn by the question words it holds, near it, and who said it', () => {
    const input = noteLocatorInput('What did Carl say about the remote buttons?', MEETING);
    const rows = locatorFeatures(input);
    expect(rows).toHaveLength(5);
    for (const r of rows) expect(r).toHaveLength(LOCATOR_FEATURES.length);
    // Turns 2 and 3 hold both "remote" and "buttons"; the others neither.
    expect(column(rows, 'lexical')).toEqual([0, 0, 1, 1, 0]);
    // "Carl" and "say" are question words no turn holds: the turns cover part of the question's weight.
    const coverage = column(rows, 'coverage');
    expect(coverage[2]).toBe(coverage[3]);
    expect(coverage[2]).toBeGreaterThan(0.2);
    expect(coverage[2]).toBeLessThan(1);
    expect([coverage[0], coverage[1], coverage[4]]).toEqual([0, 0, 0]);
    expect(column(rows, 'window_coverage2')).toEqual(coverage.map(() => coverage[2]));
    // "buttons" twice in turn 2: every occurrence counts for density, once for the rest.
    const density = column(rows, 'density6');
    expect(density[2]).toBe(1);
    expect(density[0]).toBeLessThan(density[2]!);
    expect(column(rows, 'named_turn')).toEqual([0, 0, 0, 1, 0]);
    expect(column(rows, 'named_asked')).toEqual([1, 1, 1, 1, 1]);
    expect(column(rows, 'position')).toEqual([0, 0.25, 0.5, 0.75, 1]);
    // Without the sentence model, its features are all 0.
    for (const name of ['meaning', 'meaning_pool6', 'meaning_peak', 'lexical_x_meaning'] as const)
      expect(column(rows, name)).toEqual([0, 0, 0, 0, 0]);
    expect(column(rows, 'summary_pool14')).toEqual([0, 0, 0, 0, 0]);
    const nearBest = column(rows, 'near_best');
    expect(Math.max(...nearBest)).toBe(1);
    expect(nearBest[0]).toBeLessThan(1);
  });

  it('takes the sentence model closeness of each turn when the note has passage similarities', () => {
    const note: AskNote = {
      ...MEETING,
      passages: [
        { start_ms: 0, similarity: 0.1 },
        { start_ms: 10_000, similarity: 0.5 },
        { start_ms: 20_000, similarity: 0.3 },
      ],
    };
    const rows = locatorFeatures(
      noteLocatorInput('Summarize the discussion about the remote buttons.', note),
    );
    const near = (xs: number[], want: number[]) => {
      for (const [i, x] of xs.entries()) expect(x).toBeCloseTo(want[i]!, 9);
    };
    near(column(rows, 'meaning'), [0, 0, 1, 1, 0.5]);
    near(column(rows, 'meaning_peak'), [0, 0, 1, 1, 0.0625]);
    expect(column(rows, 'summary_pool14').some((v) => v > 0)).toBe(true);
  });
});

describe('isSummaryQuestion', () => {
  it('tells a summary question from a question about what someone said', () => {
    expect(isSummaryQuestion('Summarize the discussion about the budget.')).toBe(true);
    expect(isSummaryQuestion('What did the group discuss about the remote?')).toBe(true);
    expect(isSummaryQuestion('What did Anna say about the budget?')).toBe(false);
  });
});

describe('turnRelevance', () => {
  const zeros = () => LOCATOR_FEATURES.map(() => 0);
  const made = (withLexical: number, withMeaning: number): LocatorWeights => {
    const words = zeros();
    words[LOCATOR_FEATURES.indexOf('lexical')] = withLexical;
    const meaning = zeros();
    meaning[LOCATOR_FEATURES.indexOf('meaning')] = withMeaning;
    const body = {
      features: [...LOCATOR_FEATURES],
      withMeaning: { bias: -2, weights: meaning },
      withoutMeaning: { bias: -2, weights: words },
      trainedOn: 'a test',
    };
    return { ...body, sha256: locatorChecksum(body) };
  };

  it('applies the logistic model of the weights that fit the note', () => {
    const input = noteLocatorInput('What about the remote buttons?', MEETING);
    const p = turnRelevance(input, made(4, 0));
    const low = 1 / (1 + Math.exp(2));
    const high = 1 / (1 + Math.exp(-2));
    expect(p.map((x) => x.toFixed(6))).toEqual([low, low, high, high, low].map((x) => x.toFixed(6)));
    // With passage similarities the other weights apply: here only closeness in meaning counts.
    const withMeaning = noteLocatorInput('What about the remote buttons?', {
      ...MEETING,
      passages: [
        { start_ms: 0, similarity: 0.9 },
        { start_ms: 10_000, similarity: 0.1 },
      ],
    });
    const q = turnRelevance(withMeaning, made(4, 4));
    expect(q[0]).toBeCloseTo(high, 6);
    expect(q[2]).toBeCloseTo(low, 6);
  });

  it('ships weights for every feature that match their checksum', () => {
    expect(LOCATOR_WEIGHTS.features).toEqual([...LOCATOR_FEATURES]);
    for (const model of [LOCATOR_WEIGHTS.withMeaning, LOCATOR_WEIGHTS.withoutMeaning])
      expect(model.weights).toHaveLength(LOCATOR_FEATURES.length);
    const { sha256, ...body } = LOCATOR_WEIGHTS;
    expect(locatorChecksum(body)).toBe(sha256);
    const edited = {
      ...body,
      withoutMeaning: { ...body.withoutMeaning, bias: body.withoutMeaning.bias + 1 },
    };
    expect(locatorChecksum(edited)).not.toBe(sha256);
  });

  it('takes the largest of more turns than a spread argument list can hold', () => {
    const many = Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 300_001);
    expect(() => Math.max(...many)).toThrow(RangeError);
    expect(largest(many)).toBe(300_000);
    expect(largest([], 0)).toBe(0);
    expect(largest([-2, -1])).toBe(-1);
  });
});
