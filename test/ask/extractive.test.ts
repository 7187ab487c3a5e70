import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AskNote,
  answerExtractively,
  DEFAULT_EXTRACTIVE,
  isTimeQuestion,
  NOTHING_RELEVANT,
} from '../../src/features/ask/extractive.ts';
import { splitTurn } from '../../src/features/ask/transcript-sentences.ts';

const note = (id: string, created_at: string, turns: [string, string][]): AskNote => ({
  id,
  title: `Meeting ${id}`,
  created_at,
  segments: turns.map(([speaker, text], i) => ({
    speaker,
    text,
    start_ms: i * 5000,
    end_ms: i * 5000 + 4000,
  })),
});

const PRICING = note('note_a', '2026-03-01T10:00:00.000Z', [
  ['Anna', 'Good morning everyone, let us start.'],
  ['Ben', 'The weather was awful on the way in today.'],
  [
    'Anna',
    'On pricing, I decided we keep the premium tier at forty dollars a month. Discounts stay off the table.',
  ],
  ['Ben', 'Fine by me. The pricing page gets the new premium tier copy next week.'],
  ['Carl', 'Marketing will announce the premium pricing change in the newsletter.'],
  ['Ben', 'Unrelated, but the office kitchen needs a new coffee machine.'],
]);

const OLDER = note('note_b', '2026-01-10T10:00:00.000Z', [
  ['Dora', 'Our first discussion of premium pricing ended without a decision on the tier.'],
  ['Eli', 'We should survey customers before we set any premium pricing at all.'],
]);

describe('answerExtractively', () => {
  it('answers from the sentences that discuss the question, each cited verbatim in spoken order', () => {
    const a = answerExtractively('What did Anna decide about premium pricing?', [PRICING]);
    expect(a.answered).toBe(true);
    expect(a.citations.length).toBeGreaterThan(0);
    expect(a.answer).toContain('forty dollars');
    expect(a.answer).not.toContain('coffee');
    for (const [i, c] of a.citations.entries()) {
      expect(a.answer).toContain(`[${i + 1}]`);
      const segment = PRICING.segments.find((s) => s.start_ms === c.start_ms)!;
      expect(segment.text).toContain(c.quote);
      expect(c.speaker).toBe(segment.speaker);
    }
    const starts = a.citations.map((c) => c.start_ms!);
    expect(starts).toEqual([...starts].sort((x, y) => x - y));
  });

  it('prefers what the named speaker said', () => {
    const a = answerExtractively('What did Carl say about the premium pricing?', [PRICING], {
      ...answerOptions(),
      maxCitations: 1,
    });
    expect(a.citations).toHaveLength(1);
    expect(a.citations[0]!.speaker).toBe('Carl');
  });

  it('groups by note, search order by default and newest first for a question about time', () => {
    const ranked = answerExtractively('premium pricing tier', [OLDER, PRICING]);
    expect(ranked.citations[0]!.note_id).toBe('note_b');
    const latest = answerExtractively('What is the latest on premium pricing tier?', [OLDER, PRICING]);
    expect(latest.citations[0]!.note_id).toBe('note_a');
    const ids = latest.citations.map((c) => c.note_id);
    expect(ids.lastIndexOf('note_a')).toBeLessThan(ids.indexOf('note_b'));
    for (const q of ['What was decided last week?', 'Any recent news on pricing?', 'the latest on hiring'])
      expect(isTimeQuestion(q), q).toBe(true);
    expect(isTimeQuestion('What did Anna decide about pricing?')).toBe(false);
  });

  it('says so when nothing answers: no content words, no match, or another language', () => {
    for (const q of [
      'What did they say?',
      'quantum chromodynamics lattice',
      '¿Qué decidieron sobre los precios?',
    ]) {
      expect(answerExtractively(q, [PRICING])).toEqual({
        answered: false,
        answer: NOTHING_RELEVANT,
        citations: [],
      });
    }
    expect(answerExtractively('premium pricing', []).answered).toBe(false);
  });

  it('keeps to max citations', () => {
    const a = answerExtractively('premium pricing tier', [OLDER, PRICING], {
      ...answerOptions(),
      maxCitations: 2,
    });
    expect(a.citations.length).toBeLessThanOrEqual(2);
  });
});

const answerOptions = () => ({ ...DEFAULT_EXTRACTIVE });

describe('splitTurn', () => {
  it('splits at sentence ends followed by space, keeping offsets into the original text', () => {
    const text = 'Well {vocalsound} we agreed.  Is it 3.5 percent?! Yes … maybe';
    const parts = splitTurn(text, 0);
    expect(parts.map((p) => text.slice(p.start, p.end))).toEqual([
      'Well {vocalsound} we agreed.',
      'Is it 3.5 percent?!',
      'Yes … maybe',
    ]);
    expect(parts[0]!.text).toBe('Well we agreed.');
  });

  it('every sentence is a verbatim piece of any text, and adversarial text is split quickly', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('.', '!', '?', ' ', 'a', '\n', '{', '}'), maxLength: 400 }),
        (text) => {
          for (const s of splitTurn(text, 0)) {
            expect(text.slice(s.start, s.end).trim()).toBe(text.slice(s.start, s.end));
            expect(s.end).toBeGreaterThan(s.start);
          }
        },
      ),
    );
    const hostile = `${'. '.repeat(50_000)}${'!?'.repeat(50_000)}${'a '.repeat(50_000)}`;
    expect(splitTurn(hostile, 0).length).toBeGreaterThan(0);
  }, 90_000);
});
