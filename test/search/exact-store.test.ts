import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mode } from '../../src/db/schema.ts';
import { createAccount } from '../../src/features/accounts/accounts.service.ts';
import { searchRepo } from '../../src/features/search/search.repo.ts';
import { vectorToBytes } from '../../src/features/search/search.tables.ts';
import {
  createExactStore,
  createExactVectorCache,
  type ExactVectorCache,
} from '../../src/features/search/vectors/exact-store.ts';
import { MAX_MEMORIES, scanSpaceBytes } from '../../src/features/search/vectors/scan-memory.ts';
import { newId, randomBase62 } from '../../src/lib/ids.ts';
import { nowIso } from '../../src/lib/time.ts';
import { createTestDatabase, DIALECTS, depsOver, type TestDatabase } from '../helpers/dialects.ts';

// Six components: not a multiple of the scan's four running sums, so the tail is summed too.
const DIMS = 6;
const EMBEDDER = 'test:exact';

function unit(values: number[]): Float32Array {
  const v = Float32Array.from(values);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

for (const dialect of DIALECTS) {
  describe(`exact vector store (${dialect})`, () => {
    let database: TestDatabase;
    let space: { accountId: string; mode: Mode };
    let other: { accountId: string; mode: Mode };
    const vectors = new Map<string, Float32Array>();

    /** A note with its vector written as indexing writes it (the version of its space changes). */
    async function putNote(
      target: { accountId: string; mode: Mode },
      vector: Float32Array,
      id = newId('note'),
    ) {
      const now = nowIso();
      await database.db
        .insertInto('notes')
        .values({
          id,
          account_id: target.accountId,
          mode: target.mode,
          title: 'note',
          status: 'ready',
          duration_seconds: 0,
          tags: '[]',
          summary: '',
          transcript: '',
          created_at: now,
          updated_at: now,
        } as never)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      await searchRepo.markIndexed(database.db, target, id, {
        embedder: EMBEDDER,
        embedding: vectorToBytes(vector),
        chunkCount: 1,
        at: now,
      });
      if (target === space) vectors.set(id, vector);
      return id;
    }

    /** The k nearest of the space by brute force: similarity, then note id. */
    function expected(query: Float32Array, k: number) {
      return [...vectors]
        .map(([noteId, v]) => ({ noteId, similarity: cosine(query, v) }))
        .sort((a, b) => b.similarity - a.similarity || (a.noteId < b.noteId ? -1 : 1))
        .slice(0, k)
        .map((h) => h.noteId);
    }

    const search = (cache: ExactVectorCache, query: Float32Array, k: number) =>
      createExactStore(cache)
        .search(database.db, DIMS, space, query, k, { embedderId: EMBEDDER, filters: {} })
        .then((hits) => hits.map((h) => h.noteId));

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      const deps = depsOver(database);
      const email = () => `exact-${randomBase62(8).toLowerCase()}@example.com`;
      space = { accountId: (await createAccount(deps, { email: email() })).id, mode: 'live' };
      other = { accountId: (await createAccount(deps, { email: email() })).id, mode: 'live' };
      for (let i = 0; i < 40; i++) {
        await putNote(space, unit([Math.sin(i), Math.cos(i), Math.sin(2 * i), 1, Math.cos(3 * i), i % 3]));
      }
      // Two notes with the same vector: their order is their ids' order.
      const twin = unit([1, 0.2, 0, 0.1, 0, 0]);
      await putNote(space, twin);
      await putNote(space, twin);
      // Another account's note nearest of all to the query below: never in this space's results.
      await putNote(other, unit([1, 0.2, 0, 0.1, 0, 0]));
    }, 60_000);

    afterAll(async () => {
      await database?.destroy();
    });

    it('finds the k nearest note vectors of the space exactly, ties in note id order', async () => {
      const cache = createExactVectorCache(1024 * 1024);
      const query = unit([1, 0.2, 0, 0.1, 0, 0]);
      for (const k of [1, 2, 5, 50]) expect(await search(cache, query, k)).toEqual(expected(query, k));
      expect(cache.spaces.size).toBe(1);
      // Too large for the cache: page by page, the same answer.
      const none = createExactVectorCache(0);
      expect(await search(none, query, 5)).toEqual(expected(query, 5));
      expect(none.spaces.size).toBe(0);
      await cache.scanner.close();
    });

    it('sees a note written, re-indexed or removed by another process at the next search', async () => {
      const cache = createExactVectorCache(1024 * 1024);
      const query = unit([0, 0, 0, 0, 0, 1]);
      expect(await search(cache, query, 3)).toEqual(expected(query, 3));
      // Written straight to the database, as another process's indexing would: this cache is not told.
      const added = await putNote(space, unit([0, 0, 0, 0.01, 0, 1]));
      expect((await search(cache, query, 3))[0]).toBe(added);
      const farthest = expected(query, vectors.size).at(-1)!;
      await putNote(space, unit([0, 0, 0, 0, 0.001, 1]), farthest);
      expect((await search(cache, query, 3))[0]).toBe(farthest);
      await searchRepo.deleteNote(database.db, farthest);
      vectors.delete(farthest);
      expect(await search(cache, query, 3)).toEqual(expected(query, 3));
      expect(await search(cache, query, 3)).not.toContain(farthest);
      await cache.scanner.close();
    });

    it('gives every space its turn when more spaces search than it keeps memories for', async () => {
      const cache = createExactVectorCache(1024 * 1024);
      const deps = depsOver(database);
      const query = unit([1, 0, 0, 0, 0, 0]);
      for (let i = 0; i <= MAX_MEMORIES; i++) {
        const account = await createAccount(deps, {
          email: `turn-${i}-${randomBase62(6).toLowerCase()}@example.com`,
        });
        const tenant = { accountId: account.id, mode: 'live' as const };
        const id = await putNote(tenant, unit([1, i, 0, 0, 0, 0]));
        const hits = await createExactStore(cache).search(database.db, DIMS, tenant, query, 3, {
          embedderId: EMBEDDER,
          filters: {},
        });
        expect(hits.map((h) => h.noteId)).toEqual([id]);
        // The space just searched is cached, the least recently used made way for it.
        expect([...cache.spaces.keys()].at(-1)).toContain(account.id);
        expect(cache.spaces.size).toBe(Math.min(i + 1, MAX_MEMORIES));
      }
      expect(cache.memories.bytes).toBeLessThanOrEqual(cache.budgetBytes);
      await cache.scanner.close();
    });

    it('drops its copy of a space that outgrew the cache, and still answers exactly from the table', async () => {
      // A cached space takes whole 64 KiB pages: the budget is the space's, and it grows past a page.
      const cache = createExactVectorCache(scanSpaceBytes(vectors.size, DIMS));
      const query = unit([0, 1, 0, 0, 0, 0]);
      expect(await search(cache, query, 4)).toEqual(expected(query, 4));
      expect(cache.spaces.size).toBe(1);
      for (let i = 0; scanSpaceBytes(vectors.size, DIMS) <= cache.budgetBytes; i++) {
        await putNote(space, unit([0, 1, 0, 0, Math.sin(i), 0.01]));
      }
      expect(await search(cache, query, 4)).toEqual(expected(query, 4));
      expect(cache.spaces.size).toBe(0);
      expect(cache.bytes).toBe(0);
      await cache.scanner.close();
    });
  });
}
