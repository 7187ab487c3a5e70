import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkNote, splitLongText } from '../../src/features/search/chunk-note.ts';
import { phraseShare, queryPairs } from '../../src/features/search/phrase.ts';
import { analyzeQuery } from '../../src/features/search/query.ts';
import { DEFAULT_RANK_PARAMS, type NoteEvidence, rankNotes } from '../../src/features/search/rank.ts';
import { buildSnippet } from '../../src/features/search/snippet.ts';
import { porterStem } from '../../src/features/search/text/porter-stem.ts';

const evidence = (noteId: string, e: Partial<NoteEvidence> = {}): NoteEvidence => ({
  noteId,
  keyword: [],
  coverage: 0,
  phrase: 0,
  rareTermsPresent: false,
  ...e,
});

describe('query analysis', () => {
  it('keeps content words, drops question phrasing, falls back for odd queries', () => {
    expect(analyzeQuery('What did Anna say about the kinetic battery?').terms).toEqual([
      'anna',
      'kinetic',
      'battery',
    ]);
    expect(analyzeQuery('summarize the discussion').terms).toEqual(['summarize', 'discussion']);
    expect(analyzeQuery('the and of').terms).toEqual(['the', 'and', 'of']);
    expect(analyzeQuery('🎉 ?!').terms).toEqual([]);
    expect(analyzeQuery('Crème brûlée').terms).toEqual(['creme', 'brulee']);
    expect(analyzeQuery(`${'word '.repeat(300)}x`).terms.length).toBeLessThanOrEqual(24);
  });

  it('stems like the porter tokenizer of the keyword index', () => {
    expect(
      ['budgets', 'exceeded', 'planning', 'generalization', 'relational', 'happy'].map(porterStem),
    ).toEqual(['budget', 'exceed', 'plan', 'gener', 'relat', 'happi']);
  });
});

describe('phrases', () => {
  const pairsOf = (q: string) => queryPairs(analyzeQuery(q));

  it('pairs consecutive content words of the query, stemmed, without question phrasing', () => {
    expect(pairsOf('What did the team say about the disk space problems?')).toEqual([
      'disk space',
      'space problem',
    ]);
    expect(pairsOf('budget')).toEqual([]);
  });

  it('finds them side by side in a passage, function words between them skipped', () => {
    const pairs = pairsOf('disk space for the recordings');
    expect(phraseShare(pairs, 'We ran out of disk space for all of the recordings.', porterStem)).toBe(1);
    expect(phraseShare(pairs, 'Recordings use space on the disk.', porterStem)).toBe(0);
    expect(phraseShare(pairs, 'The disk space is fine.', porterStem)).toBe(0.5);
    expect(phraseShare([], 'anything', porterStem)).toBe(0);
  });

  it('ranks the note that holds the phrase above one that holds the words apart', () => {
    const ranked = rankNotes(
      [
        evidence('apart', { keyword: [10], coverage: 1, phrase: 0 }),
        evidence('phrase', { keyword: [9], coverage: 1, phrase: 1 }),
      ],
      10,
    );
    expect(ranked[0]!.noteId).toBe('phrase');
    expect(ranked[0]!.relevance).toBeGreaterThan(ranked[1]!.relevance);
  });
});

describe('relevance', () => {
  it('a note holding all rare terms of the query scores at least 0.5, even when others match more', () => {
    const ranked = rankNotes(
      [
        evidence('a', { keyword: [9, 8, 7], coverage: 0.6 }),
        evidence('b', { keyword: [2], coverage: 1, rareTermsPresent: true }),
        evidence('c', { keyword: [8, 8], coverage: 0.5 }),
      ],
      50,
    );
    expect(ranked.find((r) => r.noteId === 'b')!.relevance).toBeGreaterThanOrEqual(0.5);
  });

  it('the rare-term floor holds when the rare words carry the query, or the query is a few keywords', () => {
    const others = Array.from({ length: 10 }, (_, i) => evidence(`other${i}`, { keyword: [1], vector: 0.1 }));
    const judge = (rareShare: number, queryWords: number) =>
      rankNotes(
        [
          evidence('note', {
            keyword: [3],
            coverage: 0.1,
            vector: 0.2,
            passages: 80,
            rareTermsPresent: true,
            rareShare,
            queryWords,
          }),
          ...others,
        ],
        50,
      ).find((r) => r.noteId === 'note')!.relevance;
    // A question whose rare words carry it ("What did Priya say about the Kubernetes migration?"): the floor.
    expect(judge(1, 8)).toBe(DEFAULT_RANK_PARAMS.rareFloor);
    expect(judge(DEFAULT_RANK_PARAMS.rareMinShare, 8)).toBe(DEFAULT_RANK_PARAMS.rareFloor);
    // "What did Marketing think of rubber material when discussing user requirements of the new remote
    // control?" with only "rubber" in one note: the fit and the veto decide.
    expect(judge(0.3, 17)).toBeLessThan(0.5);
    // "Zanzibar vendor", "vendor" in a few notes: a keyword query keeps the floor whatever the share.
    expect(judge(0.3, 2)).toBe(DEFAULT_RANK_PARAMS.rareFloor);
    expect(judge(0.3, DEFAULT_RANK_PARAMS.keywordQueryWords)).toBe(DEFAULT_RANK_PARAMS.rareFloor);
    expect(judge(0.3, DEFAULT_RANK_PARAMS.keywordQueryWords + 1)).toBeLessThan(0.5);
  });

  it('the vector veto judges sentences, not keyword queries: a few words that a note holds are not vetoed', () => {
    const others = Array.from({ length: 10 }, (_, i) => evidence(`other${i}`, { vector: 0.05 }));
    const judge = (queryWords: number) =>
      rankNotes(
        [
          evidence('note', { keyword: [5], coverage: 1, phrase: 1, vector: 0.2, passages: 60, queryWords }),
          ...others,
        ],
        11,
      ).find((r) => r.noteId === 'note')!.relevance;
    // "contractor invoices" against a passage about them: cosine 0.20 (all-MiniLM-L6-v2).
    expect(judge(2)).toBeGreaterThanOrEqual(0.5);
    expect(judge(DEFAULT_RANK_PARAMS.keywordQueryWords)).toBeGreaterThanOrEqual(0.5);
    expect(judge(DEFAULT_RANK_PARAMS.keywordQueryWords + 1)).toBeLessThan(0.5);
  });

  it('a weak match on one common word of the query is not relevant; a clear semantic match is', () => {
    const ranked = rankNotes(
      [
        evidence('picnic', { keyword: [1.2], coverage: 0.2, vector: 0.2 }),
        evidence('budget', { vector: 0.55 }),
        evidence('hiring', { vector: 0.15 }),
        evidence('brewing', { vector: 0.05 }),
      ],
      4,
    );
    expect(ranked[0]!.noteId).toBe('budget');
    expect(ranked[0]!.relevance).toBeGreaterThanOrEqual(0.5);
    expect(ranked.find((r) => r.noteId === 'picnic')!.relevance).toBeLessThan(0.5);
  });

  it('a long note needs a closer best passage to be relevant by meaning than a short one', () => {
    const others = Array.from({ length: 10 }, (_, i) => evidence(`other${i}`, { vector: 0.05 }));
    const judge = (passages: number, vector: number) =>
      rankNotes([evidence('note', { vector, passages }), ...others], 11).find((r) => r.noteId === 'note')!
        .relevance;
    // The same cosine: relevant as the best of 4 passages, not as the best of 80 (one of many, by chance).
    expect(judge(4, 0.4)).toBeGreaterThanOrEqual(0.5);
    expect(judge(80, 0.4)).toBeLessThan(0.5);
    // A long note whose best passage is much closer still passes.
    expect(judge(80, 0.7)).toBeGreaterThanOrEqual(0.5);
    // The veto line rises too: a long note sharing a few words but not the meaning stays below 0.5.
    const keywordOnly = (passages: number) =>
      rankNotes(
        [evidence('note', { keyword: [5], coverage: 1, phrase: 1, vector: 0.3, passages }), ...others],
        11,
      ).find((r) => r.noteId === 'note')!.relevance;
    expect(keywordOnly(4)).toBeGreaterThanOrEqual(0.5);
    expect(keywordOnly(80)).toBeLessThan(0.5);
  });

  it('lists most relevant first, relevance in [0, 1], and no lower-ranked note above a higher one', () => {
    const ranked = rankNotes(
      Array.from({ length: 30 }, (_, i) =>
        evidence(`n${i}`, { keyword: [30 - i, 10], coverage: (i % 7) / 7, vector: 0.3 }),
      ),
      30,
      DEFAULT_RANK_PARAMS,
    );
    for (const r of ranked) {
      expect(r.relevance).toBeGreaterThanOrEqual(0);
      expect(r.relevance).toBeLessThanOrEqual(1);
    }
    for (let i = 1; i < ranked.length; i++)
      expect(ranked[i - 1]!.relevance).toBeGreaterThanOrEqual(ranked[i]!.relevance);
    expect(rankNotes([], 0)).toEqual([]);
  });
});

describe('snippets', () => {
  const weights = new Map([
    [porterStem('kinetic'), 3],
    [porterStem('battery'), 2],
  ]);
  const long = [
    `Ann: ${'We started with the agenda and the minutes of the last meeting. '.repeat(4)}`,
    'Ben: The kinetic battery would charge when you shake the remote, so no batteries to replace.',
    `Cy: ${'Then we moved on to the colours and the shape of the case for a while. '.repeat(4)}`,
  ].join('\n');

  it('shows the window with the query terms, cut at word boundaries, at most 300 characters', () => {
    const s = buildSnippet({ text: long, startMs: 1000, lineStarts: [1000, 61_000, 95_000] }, weights);
    expect(s.text.length).toBeLessThanOrEqual(300);
    expect(s.text).toContain('kinetic battery');
    expect(s.text).toMatch(/^(…|Ben:)/);
    expect(s.matchedTerms).toBe(2);
    expect(s.matchedAtMs).toBe(61_000);
    const inner = s.text.replace(/^…/, '').replace(/…$/, '');
    for (const word of inner.split(/\s+/)) expect(long).toContain(word);
  });

  it('without a lexical match starts at the beginning', () => {
    const s = buildSnippet({ text: long, startMs: 1000, lineStarts: [1000, 61_000, 95_000] }, new Map());
    expect(s.text.startsWith('Ann: We started')).toBe(true);
    expect(s.text.endsWith('…')).toBe(true);
    expect(s.matchedAtMs).toBe(1000);
    expect(buildSnippet({ text: 'Short title', startMs: null, lineStarts: null }, weights)).toEqual({
      text: 'Short title',
      matchedTerms: 0,
    });
  });
});

describe('chunking', () => {
  it('splits long text at sentence ends and never exceeds the word limit', () => {
    const text = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} has exactly seven words.`).join(
      ' ',
    );
    const pieces = splitLongText(text, 50);
    expect(pieces.length).toBeGreaterThan(5);
    for (const p of pieces) expect(p.split(/\s+/).length).toBeLessThanOrEqual(50);
    expect(pieces.join(' ')).toBe(text);
  });

  it('drops annotation marks and splits a very long turn with estimated start times', () => {
    const chunks = chunkNote({
      title: 'T',
      summary: '',
      segments: [
        {
          speaker: 'A',
          start_ms: 0,
          end_ms: 600_000,
          text: `{vocalsound} ${'Words go on and on here. '.repeat(100)}`,
        },
      ],
      speakers: [{ label: 'A', name: 'Ann' }],
      highlights: [{ timestamp_ms: 5000, text: 'Key point' }],
      actionItems: [{ text: 'Send the deck', assignee: 'Ann' }],
    });
    expect(chunks.map((c) => c.kind).slice(0, 3)).toEqual(['title', 'highlight', 'action_item']);
    expect(chunks[2]!.text).toBe('Send the deck (Ann)');
    const passages = chunks.filter((c) => c.kind === 'transcript');
    expect(passages.length).toBeGreaterThan(1);
    expect(passages.some((p) => p.text.includes('{vocalsound}'))).toBe(false);
    expect(passages[1]!.startMs).toBeGreaterThan(0);
    expect(passages[1]!.startMs).toBeLessThan(600_000);
  });
});

describe('properties', () => {
  it('a snippet is at most 300 characters of the chunk’s own words, whatever the text and query', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ maxLength: 30 }),
            fc.constantFrom('budget', 'Über', '预算', '🎉', '\n', 'Ann:'),
          ),
          {
            maxLength: 120,
          },
        ),
        fc.array(fc.constantFrom('budget', 'uber', '预算', 'ann', 'zzz'), { maxLength: 4 }),
        (parts, terms) => {
          const text = parts.join(' ');
          const weights = new Map(terms.map((t) => [porterStem(t), 1]));
          const s = buildSnippet({ text, startMs: 0, lineStarts: null }, weights);
          expect(s.text.length).toBeLessThanOrEqual(300);
          for (const word of s.text.replace(/…/g, ' ').split(/\s+/).filter(Boolean)) {
            expect(text.replace(/\s+/g, ' ')).toContain(word);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('relevance is within [0, 1] and never increases down the list', () => {
    const ev = fc.record({
      keyword: fc.array(fc.double({ min: 0, max: 50, noNaN: true }), { maxLength: 4 }),
      vector: fc.option(fc.double({ min: -1, max: 1, noNaN: true }), { nil: undefined }),
      coverage: fc.double({ min: 0, max: 1, noNaN: true }),
      phrase: fc.double({ min: 0, max: 1, noNaN: true }),
      rareTermsPresent: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(ev, { maxLength: 40 }), fc.integer({ min: 0, max: 10_000 }), (list, extra) => {
        const ranked = rankNotes(
          list.map((e, i) => ({ noteId: `n${i}`, ...e, keyword: [...e.keyword].sort((a, b) => b - a) })),
          list.length + extra,
        );
        expect(ranked).toHaveLength(list.length);
        for (const [i, r] of ranked.entries()) {
          expect(r.relevance).toBeGreaterThanOrEqual(0);
          expect(r.relevance).toBeLessThanOrEqual(1);
          if (i > 0) expect(ranked[i - 1]!.relevance).toBeGreaterThanOrEqual(r.relevance);
        }
      }),
      { numRuns: 300 },
    );
  });
});
