import { describe, expect, it } from 'vitest';
import { defaultDetector } from '../../src/features/processing/action-items/detector.ts';
import { analyzeTranscript, createSpeakerDirectory } from '../../src/features/processing/analyze-builtin.ts';
import { extractActionItems } from '../../src/features/processing/extract-action-items.ts';
import { splitSentences } from '../../src/features/processing/sentences.ts';
import { MONDAY, PEOPLE, segments } from './analysis-fixtures.ts';

const speakers = createSpeakerDirectory(PEOPLE);
const TURNS: [string, string][] = [
  ['Speaker 1', 'So check out the corporate website.'],
  ['Speaker 2', "We're gonna start recording them, I think."],
  ['Speaker 3', 'I think that is a good plan.'],
  ['Speaker 1', "I'll send the minutes."],
  ['Speaker 2', 'We need to check the costs by Friday.'],
];
const sentences = splitSentences(segments(TURNS));
/** Items for given per-sentence probabilities, with keep 0.5 and add 0.8. */
const withScores = (scores: number[]) =>
  extractActionItems(sentences, speakers, MONDAY, { scores, thresholds: { keep: 0.5, add: 0.8 } });

describe('action items: rules and the learned detector together', () => {
  it('drops a rule item in a sentence the detector finds unlikely, unless it is a commitment or has a due date', () => {
    // An imperative is judged by the detector; "I'll send …" and "we need to … by Friday" are commitments.
    const rulesAlone = extractActionItems(sentences, speakers, MONDAY, { detector: null });
    expect(rulesAlone.map((i) => i.text)).toEqual([
      'Check out the corporate website',
      'Send the minutes',
      'Check the costs by Friday',
    ]);
    expect(withScores([0.1, 0.1, 0.1, 0.1, 0.1])).toEqual([
      { text: 'Send the minutes', assignee: 'Alice Chen' },
      { text: 'Check the costs by Friday', due: '2026-11-27' },
    ]);
    expect(withScores([0.6, 0.1, 0.1, 0.1, 0.1]).map((i) => i.text)).toContain(
      'Check out the corporate website',
    );
  });

  it("keeps the team's work elsewhere as a commitment, judges the meeting's own deliberation as looser forms", () => {
    const team = splitSentences(
      segments([
        ['Speaker 1', 'We need to send the contract to legal.'],
        ['Speaker 2', 'We need to decide on the case.'],
        ['Speaker 3', 'We have to think about the shape next time.'],
        ['Speaker 1', 'We have to talk to the vendor.'],
        ['Speaker 2', 'We have to talk about the colours.'],
      ]),
    );
    const items = (p: number) =>
      extractActionItems(team, speakers, MONDAY, {
        scores: [p, p, p, p, p],
        thresholds: { keep: 0.5, add: 2, keepCommitted: 0.05 },
      }).map((i) => i.text);
    // Below the keep threshold, "decide on the case" (the meeting deciding) goes; work elsewhere and a
    // deliberation put after the meeting stay, as commitments do.
    expect(items(0.1)).toEqual([
      'Send the contract to legal',
      'Think about the shape next time',
      'Talk to the vendor',
    ]);
    expect(items(0.6)).toEqual([
      'Send the contract to legal',
      'Decide on the case',
      'Think about the shape next time',
      'Talk to the vendor',
    ]);
    // Below the commitment threshold every one of them goes.
    expect(items(0.01)).toEqual([]);
  });

  it('adds an item, worded by the rules’ normalisation, where only the detector sees a task', () => {
    expect(withScores([0.1, 0.9, 0.9, 0.1, 0.1])).toEqual([
      { text: 'Start recording them' },
      { text: 'Send the minutes', assignee: 'Alice Chen' },
      { text: 'Check the costs by Friday', due: '2026-11-27' },
    ]);
  });

  it('runs the shipped detector by default, with its own thresholds, and is deterministic', () => {
    const { keepThreshold, addThreshold } = defaultDetector().weights;
    expect(keepThreshold).toBeGreaterThanOrEqual(0);
    expect(addThreshold).toBeGreaterThan(keepThreshold);
    const input = { segments: segments(TURNS), speakers: PEOPLE, createdAt: MONDAY };
    const first = analyzeTranscript(input).action_items;
    expect(analyzeTranscript(input).action_items).toEqual(first);
    // The commitments stay whatever the detector says.
    expect(first.map((i) => i.text)).toEqual(
      expect.arrayContaining(['Send the minutes', 'Check the costs by Friday']),
    );
  });
});
