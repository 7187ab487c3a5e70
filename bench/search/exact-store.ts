/**
 * The exact vector store (PostgreSQL without pgvector, SQLite without sqlite-vec) at large spaces
 * (npm run bench:search -- exact, or tsx bench/search/exact-store.ts): SPACE note vectors (default 20,000 and
 * 100,000) of 384 random unit components are written straight into search_notes of one account, then QUERIES
 * exact searches run through the store. Reports p50/p95 per search and the heap growth during the searches
 * (bounded: one page of 2,000 vectors plus the best k). Options: SPACES=20000,100000 QUERIES=20 DIALECT=postgres.
 */
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import type { Dialect } from '../../src/db/schema.ts';
import { normalize } from '../../src/features/search/embedders/embedder.ts';
import { vectorToBytes } from '../../src/features/search/search.tables.ts';
import { createExactStore, createExactVectorCache } from '../../src/features/search/vectors/exact-store.ts';
import { newId } from '../../src/lib/ids.ts';
import { mulberry32 } from '../../src/lib/prng.ts';
import { benchActor, openBenchDatabase, percentile } from './setup.ts';

const SPACES = (process.env.SPACES ?? '20000,100000').split(',').map(Number);
const QUERIES = Number(process.env.QUERIES ?? 20);
const DIALECT = (process.env.DIALECT ?? 'postgres') as Dialect;
const DIMS = 384;
const EMBEDDER = 'bench:random';
const random = mulberry32(13);
const unit = () => normalize(Float32Array.from({ length: DIMS }, () => random() - 0.5));

// The store as a server has it: the default cache budget (config.search.exactCacheBytes).
const exactStore = createExactStore(createExactVectorCache(loadConfig({}).search.exactCacheBytes));
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
      held += batch;
    }
    const times: number[] = [];
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    for (let q = 0; q < QUERIES; q++) {
      const started = performance.now();
      const hits = await exactStore.search(database.db, DIMS, space, unit(), 25, {
        embedderId: EMBEDDER,
        filters: {},
      });
      times.push(performance.now() - started);
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
      if (hits.length !== 25) throw new Error(`expected 25 hits, got ${hits.length}`);
    }
    process.stdout.write(
      `${DIALECT} exact store, ${size} note vectors in one space: search p50 ${percentile(times, 50).toFixed(0)} ms, ` +
        `p95 ${percentile(times, 95).toFixed(0)} ms; heap growth during searches ≤ ${((heapPeak - heapBefore) / 1e6).toFixed(0)} MB\n`,
    );
  }
} finally {
  await database.close();
}
