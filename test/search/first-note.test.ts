import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness.ts';
import { addNote, search } from './search.fixtures.ts';

// The fresh-install case of the README: an account whose only note says "the budget was exceeded".
// (SQLite: the vector index; PostgreSQL here has no pgvector and searches by keyword only.)
describe('semantic search in an account with a single note (sqlite)', () => {
  const h = useHarness('sqlite');

  it('finds it by meaning at relevance ≥ 0.5, and leaves unrelated queries below 0.5', async () => {
    const tenant = await h.tenant();
    const id = await addNote(h, tenant, {
      transcript:
        'Maya: The launch budget was exceeded by 12 percent.\n' +
        'Daniel: I will send the revised forecast to finance by Friday.',
    });
    const [top] = await search(h, tenant.liveKey, { query: 'spending went over plan' });
    expect(top?.note_id).toBe(id);
    expect(top!.relevance).toBeGreaterThanOrEqual(0.5);
    for (const query of ['weather in paris', 'hiring a new designer']) {
      expect(await search(h, tenant.liveKey, { query })).toEqual([]);
    }
  });
});
