import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { addNote, search } from './search.fixtures.ts';

// The README's semantic example with the default embedder (all-MiniLM-L6-v2), in a realistic space: the 24 notes
// a test key's space is seeded with, plus the README's note. On SQLite (sqlite-vec) and on PostgreSQL (pgvector
// where installed, else exact search in the server process).
const README_NOTE = {
  title: 'Launch sync',
  tags: ['launch', 'weekly'],
  transcript:
    'Maya: The launch budget was exceeded by 12 percent.\n' +
    'Daniel: I will send the revised forecast to finance by Friday.\n' +
    'Maya: Great. Priya, please book the venue for the offsite.',
};

for (const dialect of DIALECTS) {
  describe(`semantic search with the sentence model (${dialect})`, () => {
    const h = useHarness(dialect);

    it("finds the README's note by meaning among the seeded notes, and nothing for an absent topic", async () => {
      const tenant = await h.tenant();
      // The first request of a test key seeds its space.
      const seeded = await h.request('GET', '/v1/notes?per_page=100', { key: tenant.testKey });
      expect(seeded.body.meta.total).toBe(24);
      const id = await addNote(h, tenant, README_NOTE, 'test');

      // No content word in common with the note ("The launch budget was exceeded by 12 percent").
      const results = await search(h, tenant.testKey, {
        query: 'the product release cost more than planned',
        limit: 5,
      });
      expect(results[0]?.note_id).toBe(id);
      expect(results[0]!.relevance).toBeGreaterThanOrEqual(0.5);
      // "spending went over plan" rightly prefers the seeded budget reviews ("a 10% over-plan flag" on spend).
      const spending = await search(h, tenant.testKey, { query: 'spending went over plan', limit: 5 });
      expect(spending[0]?.title).toMatch(/budget review/);
      expect(await search(h, tenant.testKey, { query: 'recipe for sourdough bread' })).toEqual([]);
    }, 120_000);
  });
}
