import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/connect.ts';
import { migrate } from '../../src/db/migrate.ts';
import type { Database, Db, Dialect } from '../../src/db/schema.ts';
import { createDeps, type Deps } from '../../src/deps.ts';
import { createAccount } from '../../src/features/accounts/accounts.service.ts';
import { type Actor, SCOPES } from '../../src/features/api-keys/scopes.ts';
import { createNote } from '../../src/features/notes/notes.service.ts';
import { indexNote, reindexAll, removeNoteFromIndex } from '../../src/features/search/index-note.ts';
import { searchNotes } from '../../src/features/search/search.service.ts';

import { loadVectorExtension } from '../../src/features/search/sqlite-vec.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { randomBase62 } from '../../src/lib/ids.ts';
import { createTestDatabase, DIALECTS } from '../helpers/dialects.ts';
import { type FakeEmbeddings, startFakeEmbeddings } from './fake-embeddings.ts';
import { MEETINGS } from './search.fixtures.ts';

/** Deps over a database handle, with log lines captured. The vector stores' mechanics are tested with GloVe (small
 * and fast); the sentence model's search is tested in semantic.test.ts. */
function makeDeps(db: Db, dialect: Dialect, env: Record<string, string> = {}) {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const config = loadConfig({ WORKER: 'false', RATE_LIMIT_PER_MINUTE: '0', EMBEDDER: 'glove', ...env });
  const deps = createDeps(config, { database: { db, dialect }, logger });
  return { deps, lines };
}

async function seedNotes(deps: Deps): Promise<{ actor: Actor; ids: Record<string, string> }> {
  const account = await createAccount(deps, { email: `vec-${randomBase62(8).toLowerCase()}@example.com` });
  const actor: Actor = { accountId: account.id, mode: 'live', scopes: new Set(SCOPES), keyId: 'key_test' };
  const ids: Record<string, string> = {};
  for (const [name, meeting] of Object.entries(MEETINGS)) {
    const note = await createNote(deps, actor, { ...meeting });
    ids[name] = note.id;
  }
  await runDueJobs(deps);
  // Processing wrote the index entries (and the vector) when it published each note.
  const indexed = await sql<{ n: number }>`
    SELECT count(*) AS n FROM search_notes WHERE note_id IN (${sql.join(Object.values(ids))})`.execute(
    deps.db,
  );
  expect(Number(indexed.rows[0]!.n)).toBe(Object.keys(ids).length);
  for (const id of Object.values(ids))
    await indexNote(deps, { accountId: actor.accountId, mode: 'live' }, id);
  return { actor, ids };
}

const find = (deps: Deps, actor: Actor, query: string) =>
  searchNotes(deps, actor, { query, limit: 10, min_relevance: 0.5 }).then((r) =>
    r.results.map((x) => x.note_id),
  );

describe('sqlite-vec vector index (extension loaded into the connection)', () => {
  let dir: string;
  let db: Kysely<Database>;
  let deps: Deps;
  let lines: ReturnType<typeof makeDeps>['lines'];
  let actor: Actor;
  let ids: Record<string, string>;
  const vecRows = async (table = 'search_vec_100') =>
    Number((await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db)).rows[0]!.n);

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-vec-'));
    const sqlite = new SQLite(path.join(dir, 'vec.sqlite'));
    sqlite.pragma('foreign_keys = ON');
    expect(loadVectorExtension(sqlite)).toEqual({ loaded: true });
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    await migrate(db, 'sqlite');
    ({ deps, lines } = makeDeps(db, 'sqlite'));
    const status = await deps.search.prepare();
    expect(status).toMatchObject({
      vectorStore: 'sqlite-vec',
      vectorsReady: true,
      embedder: 'builtin:glove-sg-100d-sif:v1',
    });
    ({ actor, ids } = await seedNotes(deps));
  }, 60_000);
  afterAll(async () => {
    await db?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('holds one vector per note, partitioned by account and mode, and finds notes by meaning', async () => {
    expect(await vecRows()).toBe(Object.keys(ids).length);
    const ddl = await sql<{
      sql: string;
    }>`SELECT sql FROM sqlite_master WHERE name = 'search_vec_100'`.execute(db);
    expect(ddl.rows[0]!.sql).toMatch(/account_id TEXT PARTITION KEY[\s\S]*mode TEXT PARTITION KEY/);
    expect((await find(deps, actor, 'spending went over plan'))[0]).toBe(ids.budget);
    expect(lines.some((l) => l.msg === 'search: hybrid keyword + vector (vector store: sqlite-vec)')).toBe(
      true,
    );
  });

  it('removes the vector with the note, and drops a vector whose note vanished behind its back', async () => {
    await db.transaction().execute(async (trx) => {
      await removeNoteFromIndex(deps, { accountId: actor.accountId, mode: 'live' }, ids.hiring!, trx);
      await trx.deleteFrom('notes').where('id', '=', ids.hiring!).execute();
    });
    expect(await vecRows()).toBe(3);
    await db.deleteFrom('notes').where('id', '=', ids.picnic!).execute();
    expect(await vecRows()).toBe(3);
    await find(deps, actor, 'company picnic at the lake');
    expect(await vecRows()).toBe(2);
  });

  it('refills an emptied vector table from the stored note vectors at start', async () => {
    await sql`DELETE FROM search_vec_100`.execute(db);
    const fresh = makeDeps(db, 'sqlite');
    await fresh.deps.search.prepare();
    expect(await vecRows()).toBe(2);
    expect(fresh.lines.some((l) => String(l.msg).includes('refilling the vector index'))).toBe(true);
  });

  describe('index built by another embedder', () => {
    let embeddings: FakeEmbeddings;
    beforeAll(async () => {
      embeddings = await startFakeEmbeddings();
    });
    afterAll(() => embeddings.close());

    it('is detected at start (logged, keyword-only until reindex), and reindex rebuilds it', async () => {
      const other = makeDeps(db, 'sqlite', {
        EMBEDDER: 'openai',
        EMBEDDER_BASE_URL: embeddings.url,
        EMBEDDER_MODEL: 'tiny',
      });
      const status = await other.deps.search.prepare();
      expect(status).toMatchObject({
        embedder: 'openai:tiny',
        indexEmbedder: 'builtin:glove-sg-100d-sif:v1',
        vectorsReady: false,
      });
      const warning = other.lines.find((l) => l.level === 40 && String(l.msg).includes('reindex'));
      expect(warning?.msg).toContain('builtin:glove-sg-100d-sif:v1');
      // Keyword search still works meanwhile.
      expect(await find(other.deps, actor, 'zymurgy')).toEqual([ids.zymurgy]);

      const result = await reindexAll(other.deps);
      expect(result.notes).toBe(2);
      const engine = await other.deps.search.engine();
      expect(engine.vectorsReady).toBe(true);
      expect(await vecRows('search_vec_8')).toBe(2);
      const old = await sql`SELECT name FROM sqlite_master WHERE name = 'search_vec_100'`.execute(db);
      expect(old.rows).toEqual([]);
      const embedders = await sql<{ embedder: string }>`SELECT DISTINCT embedder FROM search_chunks`.execute(
        db,
      );
      expect(embedders.rows.map((r) => r.embedder)).toEqual(['openai:tiny']);
    });
  });
});

describe('pgvector SQL on PGlite (over pglite-socket)', () => {
  let pglite: PGlite;
  let server: PGLiteSocketServer;
  let handle: ReturnType<typeof openDatabase>;
  let deps: Deps;
  let actor: Actor;
  let ids: Record<string, string>;

  beforeAll(async () => {
    pglite = await PGlite.create({ extensions: { vector } });
    server = new PGLiteSocketServer({ db: pglite, port: 0, host: '127.0.0.1', maxConnections: 4 });
    await server.start();
    const conn = server.getServerConn();
    handle = openDatabase(
      { dialect: 'postgres', url: `postgres://postgres@${conn}/postgres` },
      { poolSize: 1 },
    );
    await migrate(handle.db, 'postgres');
    ({ deps } = makeDeps(handle.db, 'postgres'));
    ({ actor, ids } = await seedNotes(deps));
  }, 60_000);
  afterAll(async () => {
    await handle?.close();
    await server?.stop();
    await pglite?.close();
  });

  it('creates the HNSW index and finds notes by meaning and by keywords', async () => {
    const engine = await deps.search.engine();
    expect(engine.store.kind).toBe('pgvector');
    const index = await sql<{ indexdef: string }>`
      SELECT indexdef FROM pg_indexes WHERE tablename = 'search_note_vectors_100'`.execute(handle.db);
    expect(index.rows.map((r) => r.indexdef).join('\n')).toMatch(
      /USING hnsw \(embedding vector_cosine_ops\)/,
    );
    expect((await find(deps, actor, 'spending went over plan'))[0]).toBe(ids.budget);
    expect(await find(deps, actor, 'zymurgy')).toEqual([ids.zymurgy]);
  });

  it('drops a note’s vector with the note (foreign key cascade)', async () => {
    const count = async () =>
      Number(
        (await sql<{ n: number }>`SELECT count(*) AS n FROM search_note_vectors_100`.execute(handle.db))
          .rows[0]!.n,
      );
    expect(await count()).toBe(4);
    await handle.db.deleteFrom('notes').where('id', '=', ids.picnic!).execute();
    expect(await count()).toBe(3);
  });
});

for (const dialect of DIALECTS.filter((d) => d === 'postgres')) {
  describe('PostgreSQL without pgvector', () => {
    it('searches vectors exactly in the server process, says so at start, and finds by meaning', async () => {
      const database = await createTestDatabase(dialect);
      try {
        const { deps, lines } = makeDeps(database.db, dialect);
        const status = await deps.search.prepare();
        expect(status).toMatchObject({ vectorStore: 'exact', vectorsReady: true });
        expect(
          lines.some(
            (l) =>
              l.level === 40 &&
              String(l.msg).includes('vector store: exact') &&
              String(l.msg).includes('pgvector'),
          ),
        ).toBe(true);
        const { actor, ids } = await seedNotes(deps);
        expect(await find(deps, actor, 'zymurgy workshop')).toEqual([ids.zymurgy]);
        expect((await find(deps, actor, 'spending went over plan'))[0]).toBe(ids.budget);
        // The note vectors are stored in search_notes (BYTEA), one per note.
        const stored = await sql<{ n: number }>`
          SELECT count(*) AS n FROM search_notes WHERE embedding IS NOT NULL`.execute(database.db);
        expect(Number(stored.rows[0]!.n)).toBe(Object.keys(ids).length);
      } finally {
        await database.destroy();
      }
    }, 60_000);

    it("keeps a space's vectors in its own deps' cache, within config.search.exactCacheBytes", async () => {
      const database = await createTestDatabase(dialect);
      try {
        const { deps } = makeDeps(database.db, dialect);
        await deps.search.prepare();
        const { actor, ids } = await seedNotes(deps);
        expect(await find(deps, actor, 'zymurgy workshop')).toEqual([ids.zymurgy]);
        expect(deps.search.exactVectors.spaces.size).toBe(1);
        expect(deps.search.exactVectors.bytes).toBeGreaterThan(0);
        // Other deps over the same database: a cache of their own; with no budget, page by page, the same answer.
        const config = { ...deps.config, search: { ...deps.config.search, exactCacheBytes: 0 } };
        const other = createDeps(config, { database: { db: database.db, dialect }, logger: deps.logger });
        await other.search.prepare();
        expect(await find(other, actor, 'zymurgy workshop')).toEqual([ids.zymurgy]);
        expect(other.search.exactVectors.spaces.size).toBe(0);
        expect(deps.search.exactVectors.spaces.size).toBe(1);
      } finally {
        await database.destroy();
      }
    }, 60_000);
  });
}
