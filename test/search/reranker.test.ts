import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Tenant, useHarness } from '../helpers/harness.ts';
import { addNote, MEETINGS, search } from './search.fixtures.ts';

/** A real HTTP server speaking the Cohere-compatible `POST /v1/rerank`, scripted per test. */
function rerankServer() {
  const requests: { path: string; authorization?: string; body: any }[] = [];
  let reply: (body: any) => { status?: number; json?: unknown; hang?: boolean } = () => ({ json: {} });
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', () => {
      const body = JSON.parse(raw);
      requests.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
      const r = reply(body);
      if (r.hang) return;
      res.writeHead(r.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(r.json));
    });
  });
  return {
    requests,
    /** Scores each document with `score` (in any order, as real servers sort by score). */
    scoreWith(score: (doc: string) => number) {
      reply = (body) => ({
        json: {
          id: 'rr_1',
          results: (body.documents as string[])
            .map((doc, index) => ({ index, relevance_score: score(doc) }))
            .sort((a, b) => b.relevance_score - a.relevance_score),
        },
      });
    },
    answer(r: typeof reply) {
      reply = r;
    },
    async start() {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('reranker settings', () => {
  it('are off by default and read from RERANKER_* when RERANKER=cohere', () => {
    expect(loadConfig({}).search.reranker).toBeUndefined();
    expect(
      loadConfig({ RERANKER: 'cohere', RERANKER_API_KEY: 'k', RERANKER_CANDIDATES: '5' }).search.reranker,
    ).toEqual({
      baseUrl: 'https://api.cohere.com/v2',
      apiKey: 'k',
      model: 'rerank-v3.5',
      timeoutMs: 10_000,
      candidates: 5,
      scores: 'probability',
    });
  });

  it('refuses an unknown provider, score kind or candidate count with one line each', () => {
    expect(() => loadConfig({ RERANKER: 'bm25' })).toThrow(ConfigError);
    expect(() => loadConfig({ RERANKER: 'cohere', RERANKER_SCORES: 'odds' })).toThrow(/RERANKER_SCORES/);
    expect(() => loadConfig({ RERANKER: 'cohere', RERANKER_CANDIDATES: '0' })).toThrow(/RERANKER_CANDIDATES/);
    expect(() => loadConfig({ RERANKER_BASE_URL: 'ftp://x' })).toThrow(/RERANKER_BASE_URL/);
  });
});

for (const dialect of DIALECTS) {
  describe(`POST /v1/search with a reranker (${dialect})`, () => {
    const h = useHarness(dialect);
    const fake = rerankServer();
    let baseUrl: string;
    let tenant: Tenant;
    let other: Tenant;
    const ids = {} as Record<keyof typeof MEETINGS, string>;
    // Words in the budget, hiring and picnic notes, so keyword search alone (PostgreSQL without pgvector) finds them.
    const query = 'team budget interview picnic';
    const useReranker = (env: Record<string, string> = {}) => {
      h.deps.config.search.reranker = loadConfig({
        RERANKER: 'cohere',
        RERANKER_BASE_URL: baseUrl,
        RERANKER_API_KEY: 'rr-secret',
        RERANKER_MODEL: 'bge-reranker-v2-m3',
        ...env,
      }).search.reranker;
    };
    const byTopic = (doc: string) => (/lake/.test(doc) ? 0.91 : /budget/.test(doc) ? 0.62 : 0.04);

    beforeAll(async () => {
      baseUrl = await fake.start();
      tenant = await h.tenant();
      other = await h.tenant();
      for (const [name, meeting] of Object.entries(MEETINGS)) {
        ids[name as keyof typeof MEETINGS] = await addNote(h, tenant, meeting);
      }
      // Another account's note and the caller's test-mode note hold the same words: never sent, never returned.
      await addNote(h, other, {
        title: 'Lake picnic budget',
        transcript: 'Zed: The team picnic budget at the lake.',
      });
      await addNote(
        h,
        tenant,
        { title: 'Test picnic', transcript: 'Tess: A test picnic at the lake for the team budget.' },
        'test',
      );
    });
    afterAll(() => fake.close());
    beforeEach(() => {
      fake.requests.length = 0;
      fake.scoreWith(byTopic);
      useReranker();
    });

    it('orders notes by the reranker, gives its score as relevance and its best passage as the snippet', async () => {
      const results = await search(h, tenant.liveKey, { query });
      expect(results.map((r) => r.note_id)).toEqual([ids.picnic, ids.budget]);
      expect(results.map((r) => r.relevance)).toEqual([0.91, 0.62]);
      expect(results[0]!.snippet).toContain('lake');
      expect(results[0]!.matched_at_ms).toBeGreaterThanOrEqual(0);
      expect(results[1]!.snippet).toContain('budget');

      // min_relevance applies to the reranker's scores.
      const all = await search(h, tenant.liveKey, { query, min_relevance: 0 });
      expect(all.slice(0, 2).map((r) => r.note_id)).toEqual([ids.picnic, ids.budget]);
      expect(all.map((r) => r.note_id)).toContain(ids.hiring);
      expect(all.find((r) => r.note_id === ids.hiring)!.relevance).toBe(0.04);
      // A note found only by meaning (SQLite's vectors) is judged too, and scores low.
      expect(all.find((r) => r.note_id === ids.zymurgy)?.relevance ?? 0).toBeLessThan(0.5);
    });

    it('sends one Cohere-style request with the key, the model, the query and only the caller’s passages', async () => {
      await search(h, tenant.liveKey, { query });
      expect(fake.requests).toHaveLength(1);
      const [request] = fake.requests;
      expect(request!.path).toBe('/v1/rerank');
      expect(request!.authorization).toBe('Bearer rr-secret');
      expect(request!.body).toMatchObject({ model: 'bge-reranker-v2-m3', query, return_documents: false });
      const documents = request!.body.documents as string[];
      expect(request!.body.top_n).toBe(documents.length);
      expect(documents.length).toBeGreaterThanOrEqual(3);
      expect(documents.some((d) => d.includes('lake'))).toBe(true);
      expect(documents.join('\n')).not.toMatch(/Zed|Tess/);

      // The test key searches its own mode's notes only.
      fake.requests.length = 0;
      const results = await search(h, tenant.testKey, { query: 'test picnic lake', min_relevance: 0 });
      expect(results.map((r) => r.title)).toContain('Test picnic');
      expect(results.map((r) => r.note_id)).not.toContain(ids.picnic);
      expect((fake.requests[0]!.body.documents as string[]).join('\n')).not.toMatch(/Erin|Zed/);
    });

    it('keeps the rare-word promise: a note holding the query’s rare words stays ≥ 0.5 whatever the reranker says', async () => {
      fake.scoreWith(() => 0.2);
      const results = await search(h, tenant.liveKey, { query: 'zymurgy yeast' });
      expect(results.map((r) => r.note_id)).toEqual([ids.zymurgy]);
      expect(results[0]!.relevance).toBe(0.55);
      expect(fake.requests).toHaveLength(1);
    });

    it('maps raw logits through the logistic function when RERANKER_SCORES=logit', async () => {
      useReranker({ RERANKER_SCORES: 'logit' });
      fake.scoreWith((doc) => (/lake/.test(doc) ? 2 : -3));
      const results = await search(h, tenant.liveKey, { query });
      expect(results.map((r) => r.note_id)).toEqual([ids.picnic]);
      expect(results[0]!.relevance).toBeCloseTo(1 / (1 + Math.exp(-2)), 4);
    });

    describe('falls back to the builtin ranking (200, same results as without a reranker)', () => {
      let builtin: unknown;
      beforeAll(async () => {
        h.deps.config.search.reranker = undefined;
        builtin = await search(h, tenant.liveKey, { query });
      });

      it.each([
        ['a server error', () => fake.answer(() => ({ status: 500, json: { message: 'overloaded' } }))],
        ['logits where probabilities were configured', () => fake.scoreWith(() => 3.5)],
        [
          'a result index out of range',
          () => fake.answer(() => ({ json: { results: [{ index: 99, relevance_score: 0.5 }] } })),
        ],
        [
          'a passage left unscored',
          () => fake.answer(() => ({ json: { results: [{ index: 0, relevance_score: 0.5 }] } })),
        ],
        ['an answer without results', () => fake.answer(() => ({ json: { error: 'no' } }))],
      ])('on %s', async (_name, script) => {
        script();
        const res = await h.request('POST', '/v1/search', { key: tenant.liveKey, body: { query } });
        expect(res.status).toBe(200);
        expect(res.body.results).toEqual(builtin);
        expect(fake.requests).toHaveLength(1);
      });

      it('on a server that does not answer within RERANKER_TIMEOUT_MS', async () => {
        useReranker({ RERANKER_TIMEOUT_MS: '300' });
        fake.answer(() => ({ hang: true }));
        const res = await h.request('POST', '/v1/search', { key: tenant.liveKey, body: { query } });
        expect(res.status).toBe(200);
        expect(res.body.results).toEqual(builtin);
      });

      it('on a server that is not there', async () => {
        useReranker({ RERANKER_BASE_URL: 'http://127.0.0.1:9/v1' });
        const res = await h.request('POST', '/v1/search', { key: tenant.liveKey, body: { query } });
        expect(res.status).toBe(200);
        expect(res.body.results).toEqual(builtin);
      });
    });

    it('does not call the reranker when the query finds nothing', async () => {
      // No letter or digit: neither index is asked (a sentence model places any word somewhere).
      const results = await search(h, tenant.liveKey, { query: '?! …', min_relevance: 0 });
      expect(results).toEqual([]);
      expect(fake.requests).toHaveLength(0);
    });
  });
}
