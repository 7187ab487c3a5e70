import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Tenant, useHarness } from '../helpers/harness.ts';
import { addNote, MEETINGS, search } from './search.fixtures.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

for (const dialect of DIALECTS) {
  describe(`POST /v1/search happy paths (${dialect})`, () => {
    const h = useHarness(dialect);
    let tenant: Tenant;
    const ids = {} as Record<keyof typeof MEETINGS, string>;

    beforeAll(async () => {
      tenant = await h.tenant();
      for (const [name, meeting] of Object.entries(MEETINGS)) {
        ids[name as keyof typeof MEETINGS] = await addNote(h, tenant, {
          ...meeting,
          created_at: name === 'picnic' ? '2026-06-01T10:00:00Z' : '2026-03-01T10:00:00Z',
          tags: name === 'budget' ? ['Finance'] : ['misc'],
        });
      }
    });

    it('finds a note by a rare word it contains, relevant (≥ 0.5), with the word in the snippet', async () => {
      const results = await search(h, tenant.liveKey, { query: 'zymurgy' });
      expect(results.map((r) => r.note_id)).toEqual([ids.zymurgy]);
      const [top] = results;
      expect(top!.relevance).toBeGreaterThanOrEqual(0.5);
      expect(top!.relevance).toBeLessThanOrEqual(1);
      expect(top!.snippet.toLowerCase()).toContain('zymurgy');
      expect(top!.title).toBe('Brewing club');
      expect(top!.created_at).toMatch(ISO);
      expect(Object.keys(top!).sort()).toEqual([
        'created_at',
        'matched_at_ms',
        'note_id',
        'relevance',
        'snippet',
        'title',
      ]);
    });

    it('a word in 2 of the 24 seeded test notes is rare: both notes holding it score ≥ 0.5', async () => {
      const holders = await h.request('GET', '/v1/notes?q=Brightline', { key: tenant.testKey });
      const ids = (holders.body.data as { id: string }[]).map((n) => n.id);
      expect(ids).toHaveLength(2);
      const results = await search(h, tenant.testKey, { query: 'Brightline' });
      expect(results.map((r) => r.note_id).sort()).toEqual([...ids].sort());
      for (const r of results) expect(r.relevance).toBeGreaterThanOrEqual(0.5);
    });

    it('gives the transcript position of the snippet in matched_at_ms', async () => {
      // "Hank: The fermentation temperature log…" is the second turn: after the first at 0 ms.
      const [top] = await search(h, tenant.liveKey, { query: 'fermentation temperature log' });
      expect(top!.note_id).toBe(ids.zymurgy);
      expect(top!.snippet).toContain('fermentation temperature');
      expect(top!.matched_at_ms).toBeGreaterThanOrEqual(0);
    });

    it.runIf(dialect === 'sqlite')(
      'finds "the budget was exceeded" for "spending went over plan" (semantic, builtin embedder)',
      async () => {
        const results = await search(h, tenant.liveKey, { query: 'spending went over plan' });
        expect(results[0]?.note_id).toBe(ids.budget);
        expect(results[0]!.relevance).toBeGreaterThanOrEqual(0.5);
        expect(results.map((r) => r.note_id)).not.toContain(ids.zymurgy);
      },
    );

    it('returns one result per note, most relevant first, snippets of at most 300 characters', async () => {
      const results = await search(h, tenant.liveKey, {
        query: 'budget contractor invoices and the cost report for the board',
        min_relevance: 0,
        limit: 50,
      });
      const noteIds = results.map((r) => r.note_id);
      expect(new Set(noteIds).size).toBe(noteIds.length);
      expect(results[0]!.note_id).toBe(ids.budget);
      for (const r of results) {
        expect(r.snippet.length).toBeLessThanOrEqual(300);
        expect(r.relevance).toBeGreaterThanOrEqual(0);
        expect(r.relevance).toBeLessThanOrEqual(1);
      }
      for (let i = 1; i < results.length; i++) {
        expect(results[i - 1]!.relevance).toBeGreaterThanOrEqual(results[i]!.relevance);
      }
    });

    it('omits results below min_relevance (default 0.5) and honors limit', async () => {
      const all = await search(h, tenant.liveKey, { query: 'the team', min_relevance: 0 });
      expect(all.length).toBeGreaterThan(1);
      const defaulted = await search(h, tenant.liveKey, { query: 'the team' });
      expect(defaulted.every((r) => r.relevance >= 0.5)).toBe(true);
      const one = await search(h, tenant.liveKey, { query: 'the team', min_relevance: 0, limit: 1 });
      expect(one).toEqual([all[0]]);
    });

    it('filters by from/to (bare dates are whole UTC days) and by tag (case-insensitive)', async () => {
      const query = { query: 'picnic lake budget zymurgy candidates', min_relevance: 0 };
      const june = await search(h, tenant.liveKey, { ...query, from: '2026-06-01', to: '2026-06-01' });
      expect(june.map((r) => r.note_id)).toEqual([ids.picnic]);
      const before = await search(h, tenant.liveKey, { ...query, to: '2026-05-31T23:59:59Z' });
      expect(before.map((r) => r.note_id)).not.toContain(ids.picnic);
      expect(before.length).toBeGreaterThan(0);
      const tagged = await search(h, tenant.liveKey, { ...query, tag: 'FINANCE' });
      expect(tagged.map((r) => r.note_id)).toEqual([ids.budget]);
      expect(await search(h, tenant.liveKey, { ...query, tag: 'nope' })).toEqual([]);
    });

    it('answers odd queries with 200: only stop words, punctuation, emoji, other scripts', async () => {
      for (const query of [
        'the and of',
        '?!…',
        '🎉🎉🎉',
        '预算超支了',
        'Бюджет превышен',
        'a',
        '   spaced   out   ',
      ]) {
        const results = await search(h, tenant.liveKey, { query });
        for (const r of results) expect(r.relevance).toBeGreaterThanOrEqual(0.5);
      }
      // Nothing in these notes is about them: nothing relevant comes back.
      expect(await search(h, tenant.liveKey, { query: '🎉🎉🎉' })).toEqual([]);
      expect(await search(h, tenant.liveKey, { query: 'the and of' })).toEqual([]);
    });

    it('searches the seeded test data space with a test key', async () => {
      const results = await search(h, tenant.testKey, { query: 'roadmap', min_relevance: 0 });
      expect(results.length).toBeGreaterThan(0);
      expect(results.map((r) => r.note_id)).not.toContain(ids.budget);
    });
  });
}
