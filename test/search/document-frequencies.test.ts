import { describe, expect, it } from 'vitest';
import { searchRepo } from '../../src/features/search/search.repo.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { addNote } from './search.fixtures.ts';

// A term's notes in a space: counted up to a cap, estimated beyond from the whole index. On SQLite a term is
// estimated without counting when the index proves the count would reach the cap; another space's notes must
// never make a rare term of this space look common.
for (const dialect of DIALECTS) {
  describe(`document frequencies (${dialect})`, () => {
    const h = useHarness(dialect);
    const CAP = 3;
    const df = async (accountId: string, mode: 'live' | 'test', terms: string[], staleSize?: number) => {
      const space = { accountId, mode };
      const size = staleSize ?? (await searchRepo.countNotes(h.deps.db, space));
      const found = await searchRepo.documentFrequencies(
        h.deps.db,
        dialect,
        space,
        terms.map((term) => ({ term, stem: term })),
        CAP,
        size,
        new Map(),
      );
      return Object.fromEntries(terms.map((t) => [t, found.get(t)]));
    };

    it('counts a rare term exactly, and a frequent one at least at the cap, whatever other spaces hold', async () => {
      // A test key's first request seeds its space with 24 sample notes.
      const seeded = async (tenant: { testKey: string }) => {
        await h.request('GET', '/v1/notes?per_page=1', { key: tenant.testKey });
        await runDueJobs(h.deps);
      };
      const first = await h.tenant();
      await seeded(first);
      // The first tenant's test space is every note of the instance: its frequent words need no count.
      const alone = await df(first.accountId, 'test', ['budget', 'zanzibar']);
      expect(alone.zanzibar).toBe(0);
      // The space is the whole index, so the estimate is the exact figure.
      const holding = await searchRepo.notesWithTerm(
        h.deps.db,
        dialect,
        { accountId: first.accountId, mode: 'test' },
        'budget',
        (await h.deps.db.selectFrom('notes').select('id').execute()).map((n) => n.id),
      );
      expect(holding.length).toBeGreaterThanOrEqual(CAP);
      if (dialect === 'sqlite') expect(alone.budget).toBe(holding.length);
      else expect(alone.budget).toBeGreaterThanOrEqual(CAP);

      await seeded(await h.tenant());
      const lease = {
        title: 'Lease',
        transcript: 'Omar: The Zanzibar budget for the lease is approved.\nLena: Good.',
      };
      await addNote(h, first, lease, 'live');
      // One note of this space holds "budget"; the other tenant's seeded notes hold it more often than the cap.
      expect(await df(first.accountId, 'live', ['budget', 'zanzibar', 'roadmap'])).toEqual({
        budget: 1,
        zanzibar: 1,
        roadmap: 0,
      });
      // A space size read a few seconds ago, before most of its notes were deleted, must not make the other
      // accounts' notes count as this space's.
      expect(await df(first.accountId, 'live', ['budget'], 1_000)).toEqual({ budget: 1 });
      const shared = await df(first.accountId, 'test', ['budget']);
      expect(shared.budget).toBe(alone.budget);
    }, 120_000);
  });
}
