/**
 * The exact vector store (PostgreSQL without pgvector, SQLite without sqlite-vec) at large spaces
 * (tsx bench/search/exact-store.ts): SPACES note vectors (default 10,000 and 100,000) of 384 random unit components
 * are written straight into search_notes of one account, then QUERIES exact searches run through the store and
 * through the baseline (bench/search/baseline-exact-store.ts), query by query in the same run, which must return
 * the same hits. Reports p50/p95 of both, of their change checks alone, the heap growth during the searches and
 * the cache's bytes. Options: SPACES=10000,100000 QUERIES=20 DIALECT=postgres|sqlite.
 */
import os from 'node:os';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import type { Dialect } from '../../src/db/schema.ts';
import { normalize } from '../../src/features/search/embedders/embedder.ts';
import { searchRepo } from '../../src/features/search/search.repo.ts';
import { vectorToBytes } from '../../src/features/search/search.tables.ts';
import { createExactStore, createExactVectorCache } from '../../src/features/search/vectors/exact-store.ts';
import { newId } from '../../src/lib/ids.ts';
import { mulberry32 } from '../../src/lib/prng.ts';
import { createBaselineExactStore, createBaselineVectorCache } from './baseline-exact-store.ts';
import { benchActor, openBenchDatabase, percentile } from './setup.ts';

const SPACES = (process.env.SPACES ?? '10000,100000').split(',').map(Number);
const QUERIES = Number(process.env.QUERIES ?? 20);
const DIALECT = (process.env.DIALECT ?? 'postgres') as Dialect;
const DIMS = 384;
const EMBEDDER = 'bench:random';
const random = mulberry32(13);
const unit = () => normalize(Float32Array.from({ length: DIMS }, () => random() - 0.5));

// The store as a server has it: the default cache budget (config.search.exactCacheBytes).
const budget = loadConfig({}).search.exactCacheBytes;
const cache = createExactVectorCache(budget);
const exactStore = createExactStore(cache);
const baselineStore = createBaselineExactStore(createBaselineVectorCache(budget));
const context = { embedderId: EMBEDDER, filters: {} };
const database = await openBenchDatabase(DIALECT);
try {
  const actor = await benchActor(database);
  const space = { accountId: actor.accountId, mode: actor.mode };
  let held = 0;
  const now = new Date().toISOString();
  for (const size of SPACES) {
    while (held < size) {
      const batch = Math.min(1_000, size - held);
      const ids = Array.from({ length: batch }, () => newId('note'));
      await database.db
        .insertInto('notes')
        .values(
          ids.map((id) => ({
            id,
            account_id: actor.accountId,
            mode: actor.mode,
            title: 'bench',
            status: 'ready',
            duration_seconds: 0,
            tags: '[]',
            summary: '',
            transcript: '',
            created_at: now,
            updated_at: now,
          })) as never,
        )
        .execute();
      await sql`INSERT INTO search_notes (note_id, account_id, mode, embedder, embedding, chunk_count, indexed_at)
        VALUES ${sql.join(
          ids.map(
            (id) =>
              sql`(${id}, ${actor.accountId}, ${actor.mode}, ${EMBEDDER}, ${vectorToBytes(unit())}, 1, ${now})`,
          ),
        )}`.execute(database.db);
      // As indexing does: the exact store sees a new version of the space and reads it again.
      await searchRepo.bumpNoteVectorsVersion(database.db, space);
      held += batch;
    }
    const times = {
      store: [] as number[],
      baseline: [] as number[],
      check: [] as number[],
      aggregate: [] as number[],
    };
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    // Interleaved, query by query, so both see the same load; the first search of each reads the space.
    for (let q = 0; q < QUERIES; q++) {
      const query = unit();
      let started = performance.now();
      const hits = await exactStore.search(database.db, DIMS, space, query, 25, context);
      times.store.push(performance.now() - started);
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
      started = performance.now();
      const before = await baselineStore.search(database.db, DIMS, space, query, 25, context);
      times.baseline.push(performance.now() - started);
      if (hits.length !== 25) throw new Error(`expected 25 hits, got ${hits.length}`);
      if (JSON.stringify(hits) !== JSON.stringify(before))
        throw new Error('the store and the baseline differ');
      started = performance.now();
      await searchRepo.noteVectorsVersion(database.db, space);
      times.check.push(performance.now() - started);
      started = performance.now();
      await searchRepo.noteEmbeddingsStamp(database.db, space, EMBEDDER);
      times.aggregate.push(performance.now() - started);
    }
    const ms = (list: number[]) =>
      `p50 ${percentile(list, 50).toFixed(1)} ms, p95 ${percentile(list, 95).toFixed(1)} ms`;
    process.stdout.write(
      `${DIALECT}, ${size} note vectors in one space (load average ${os.loadavg()[0]!.toFixed(1)}), same hits:\n` +
        `  exact store  ${ms(times.store)} (change check alone ${ms(times.check)}); heap growth ≤ ${((heapPeak - heapBefore) / 1e6).toFixed(0)} MB; cache ${(cache.bytes / 1e6).toFixed(0)} MB\n` +
        `  baseline     ${ms(times.baseline)} (change check alone ${ms(times.aggregate)})\n`,
    );
  }
} finally {
  await cache.scanner.close();
  await database.close();
}
