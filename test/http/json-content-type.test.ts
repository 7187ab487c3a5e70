import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';

// API.md, General: "JSON bodies, `Content-Type: application/json; charset=utf-8`", for answers and errors alike.
const JSON_UTF8 = 'application/json; charset=utf-8';

for (const dialect of DIALECTS) {
  describe(`JSON responses say charset=utf-8 (${dialect})`, () => {
    const h = useHarness(dialect);

    it('on successes, errors of every kind, the OpenAPI document and idempotent replays', async () => {
      const t = await h.tenant();
      const responses = [
        await h.request('GET', '/healthz'),
        await h.request('GET', '/readyz'),
        await h.request('GET', '/v1/openapi.json'),
        await h.request('GET', '/v1/notes', { key: t.liveKey }),
        await h.request('GET', '/v1/notes'), // 401
        await h.request('GET', '/v1/notes?per_page=0', { key: t.liveKey }), // 400
        await h.request('GET', '/v1/notes/note_000000000000000000000000', { key: t.liveKey }), // 404
        await h.request('PUT', '/v1/notes', { key: t.liveKey }), // 405
        await h.request('GET', '/nowhere', { key: t.liveKey }), // 404 outside /v1
      ];
      for (const res of responses)
        expect(res.headers.get('content-type'), String(res.status)).toBe(JSON_UTF8);
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 401, 400, 404, 405, 404]);

      const create = () =>
        h.request('POST', '/v1/notes', {
          key: t.liveKey,
          headers: { 'idempotency-key': 'charset-1' },
          body: { title: 'Café', transcript: 'Zoë: Ça va, naïve façade.' },
        });
      const first = await create();
      const replay = await create();
      expect(first.status).toBe(202);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      for (const res of [first, replay]) expect(res.headers.get('content-type')).toBe(JSON_UTF8);
      expect(replay.body).toEqual(first.body);
    });
  });
}
