import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { addNote, search } from './search.fixtures.ts';

// API.md: "a note that contains the query's rare words verbatim must score ≥ 0.5". The query's rare words are its
// rare terms when they carry most of its weight (decision 42): a name or a jargon word asked about in a question
// keeps the promise, in a realistic space (the 24 notes a test key's space is seeded with, plus two of ours).
const NOTES = [
  {
    title: 'Office lease',
    transcript:
      'Omar: The Zanzibar office lease ends in March.\n' +
      'Lena: I will ask the landlord about renewing it for two more years.',
  },
  {
    title: 'Platform sync',
    transcript:
      'Priya: The Kubernetes migration is blocked on the ingress controller.\n' +
      'Sam: I will pair with Priya on Thursday to unblock it.',
  },
];

for (const dialect of DIALECTS) {
  describe(`the rare-word promise in a realistic space (${dialect})`, () => {
    const h = useHarness(dialect);

    it('a note holding the rare words of a keyword query or of a question scores ≥ 0.5', async () => {
      const tenant = await h.tenant();
      const seeded = await h.request('GET', '/v1/notes?per_page=100', { key: tenant.testKey });
      expect(seeded.body.meta.total).toBe(24);
      const [lease, platform] = [
        await addNote(h, tenant, NOTES[0]!, 'test'),
        await addNote(h, tenant, NOTES[1]!, 'test'),
      ];
      for (const [query, id] of [
        ['Zanzibar', lease],
        ['What did we decide about the Zanzibar office lease?', lease],
        ['kubernetes ingress', platform],
        ['What did Priya say about the Kubernetes migration?', platform],
      ] as const) {
        const results = await search(h, tenant.testKey, { query, limit: 3 });
        expect(results[0]?.note_id, query).toBe(id);
        expect(results[0]!.relevance, query).toBeGreaterThanOrEqual(0.5);
      }
      // A rare word beside a word that is not rare ("budget" is in 4 seeded notes, "roadmap" in 4): the note
      // holding the rare word keeps the promise, wherever the notes about the other word rank.
      for (const [query, id] of [
        ['Zanzibar budget', lease],
        ['Kubernetes roadmap', platform],
      ] as const) {
        const results = await search(h, tenant.testKey, { query, limit: 10 });
        const hit = results.find((r) => r.note_id === id);
        expect(hit?.relevance, query).toBeGreaterThanOrEqual(0.5);
      }
    }, 120_000);
  });
}
