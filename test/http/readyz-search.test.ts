import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import type { SearchPreparation } from '../../src/features/search/search.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, useHarness } from '../helpers/harness.ts';
import { startFakeEmbeddings } from '../search/fake-embeddings.ts';

// The server listens before search is prepared (the first start builds the builtin embedder's cache, about
// 10 s): /healthz answers at once, /readyz is 200 as soon as the database answers (API.md) and says whether
// search is still being prepared, searches wait for it.

/** The fake embeddings endpoint, holding every request until released. */
async function slowEmbeddings() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { ...(await startFakeEmbeddings(released)), release };
}

/** Deps of their own (the engine and the readiness are per deps), with log lines captured. */
function depsOf(h: Harness, env: Record<string, string> = {}) {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const config = {
    ...loadConfig({ WORKER: 'false', RATE_LIMIT_PER_MINUTE: '0', ...env }),
    database: h.deps.config.database,
  };
  const deps = createDeps(config, { database: h.deps, logger });
  return { deps, lines, app: buildApp(deps) };
}

async function get(app: ReturnType<typeof buildApp>, path: string) {
  const res = await app.request(path);
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

describe('search prepared in the background (sqlite, an embedder that takes its time)', () => {
  const h = useHarness('sqlite');
  let embeddings: Awaited<ReturnType<typeof slowEmbeddings>>;
  beforeAll(async () => {
    embeddings = await slowEmbeddings();
  });
  afterAll(async () => {
    embeddings.release();
    await embeddings.close();
  });

  it('/healthz answers at once, /readyz reports search as preparing until it is ready, a search waits for it', async () => {
    const { deps, app, lines } = depsOf(h, {
      EMBEDDER: 'openai',
      EMBEDDER_BASE_URL: embeddings.url,
      EMBEDDER_MODEL: 'tiny',
    });
    const tenant = await h.tenant();
    // The harness app has no background preparation: ready as soon as the database answers.
    expect((await h.request('GET', '/readyz')).body).toEqual({ status: 'ok', database: 'sqlite' });

    const preparation = deps.search.prepareInBackground();
    expect(deps.search.readiness()).toEqual({ state: 'preparing' });
    const started = Date.now();
    expect((await get(app, '/healthz')).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await get(app, '/readyz')).toMatchObject({
      status: 200,
      body: { status: 'ok', database: 'sqlite', search: 'preparing' },
    });

    // A search waits for the engine instead of failing.
    let answered = false;
    const searching = Promise.resolve(
      app.request('/v1/search', {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.liveKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'budget' }),
      }),
    ).then((res) => {
      answered = true;
      return res;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);
    expect(embeddings.requests()).toBeGreaterThanOrEqual(1);

    embeddings.release();
    const status = await preparation.done;
    expect(status).toMatchObject({ vectorStore: 'sqlite-vec', embedder: 'openai:tiny', vectorsReady: true });
    expect((await searching).status).toBe(200);
    expect(await get(app, '/readyz')).toMatchObject({
      status: 200,
      body: { status: 'ok', database: 'sqlite', search: 'hybrid' },
    });
    expect(lines.some((l) => l.msg === 'search: hybrid keyword + vector (vector store: sqlite-vec)')).toBe(
      true,
    );
  });
});

for (const dialect of DIALECTS) {
  describe(`a search preparation that fails (${dialect})`, () => {
    const h = useHarness(dialect);

    it('is logged, reported by /readyz (no details), retried, and never an unhandled rejection', async () => {
      const { deps, app, lines } = depsOf(h);
      await sql`ALTER TABLE search_notes RENAME TO search_notes_gone`.execute(h.db.db);
      let preparation: SearchPreparation | undefined;
      try {
        // The first retry 2 s after the failure: /readyz is read while the state is still `failed` even on a busy
        // machine (with 50 ms the retry could already be preparing again).
        preparation = deps.search.prepareInBackground({ retryMs: 2_000 });
        await until(() => deps.search.readiness()?.state === 'failed');
        const res = await get(app, '/readyz');
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ status: 'ok', database: dialect, search: 'failed' });
        expect((await get(app, '/healthz')).status).toBe(200);
        const logged = lines.find((l) => l.msg.startsWith('search could not be prepared'));
        expect(logged?.level).toBe(50);
      } finally {
        await sql`ALTER TABLE search_notes_gone RENAME TO search_notes`.execute(h.db.db);
      }
      // The next try succeeds.
      expect(await preparation.done).toMatchObject({ notes: { indexed: 0 } });
      expect(deps.search.readiness()?.state).toBe('ready');
      expect((await get(app, '/readyz')).body.search).toMatch(/^(hybrid|keyword-only)$/);
    });

    it('stop() ends the retries', async () => {
      const { deps } = depsOf(h);
      await sql`ALTER TABLE search_notes RENAME TO search_notes_gone`.execute(h.db.db);
      try {
        const preparation = deps.search.prepareInBackground({ retryMs: 60_000 });
        await until(() => deps.search.readiness()?.state === 'failed');
        preparation.stop();
        expect(await preparation.done).toBeUndefined();
      } finally {
        await sql`ALTER TABLE search_notes_gone RENAME TO search_notes`.execute(h.db.db);
      }
    });
  });
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
