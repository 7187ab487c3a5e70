import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importExport } from '../../src/features/imports/import-export.service.ts';
import { fetchLimitlessLifelogs } from '../../src/features/imports/limitless-api.ts';
import { actorOf } from '../helpers/actor.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { apiLifelog, startLimitlessServer } from './limitless-api-server.ts';

for (const dialect of DIALECTS) {
  describe(`the Limitless API source (${dialect})`, () => {
    const h = useHarness(dialect);
    let server: Awaited<ReturnType<typeof startLimitlessServer>>;
    beforeAll(async () => {
      server = await startLimitlessServer({
        apiKey: 'sk-limitless-test',
        lifelogs: Array.from({ length: 12 }, (_, i) => apiLifelog(i)),
        tooMany: 1,
      });
    });
    afterAll(() => server.close());

    it('walks every page by its cursor, waits out a 429, keeps speakers, times and topics; again creates nothing', async () => {
      const t = await h.tenant();
      const read = () => fetchLimitlessLifelogs({ apiKey: 'sk-limitless-test', baseUrl: server.url });
      const outcomes = await importExport(h.deps, actorOf(t.accountId), read(), {
        source: 'limitless',
        me: 'Sam',
      });
      expect(outcomes.map((o) => o.outcome)).toEqual(Array(12).fill('imported'));
      // One 429, then two pages of at most 10, the second asked for with the first's cursor.
      expect(server.requests.map((u) => u.searchParams.get('cursor'))).toEqual([null, null, '10']);
      expect(server.requests.every((u) => u.searchParams.get('limit') === '10')).toBe(true);
      const first = outcomes[0];
      if (!first || first.outcome === 'failed') throw new Error('not imported');
      const note = await h.request('GET', `/v1/notes/${first.note_id}?include=segments`, { key: t.liveKey });
      expect(note.body).toMatchObject({
        title: 'Standup 0',
        created_at: '2025-10-01T09:00:00.000Z',
        speakers: [
          { label: 'me', name: 'Sam' },
          { label: 'Priya', name: 'Priya' },
        ],
        segments: [
          { speaker: 'me', start_ms: 0, end_ms: 3000, text: 'The migration is ready for review.' },
          { speaker: 'Priya', start_ms: 3500, end_ms: 9000, text: 'I will review it this afternoon.' },
        ],
      });
      const again = await importExport(h.deps, actorOf(t.accountId), read(), { source: 'limitless' });
      expect(again.map((o) => o.outcome)).toEqual(Array(12).fill('skipped'));
    });

    it('names a refused key and a server that keeps answering 429 or is not there', async () => {
      const t = await h.tenant();
      const bad = await importExport(
        h.deps,
        actorOf(t.accountId),
        fetchLimitlessLifelogs({ apiKey: 'wrong', baseUrl: server.url }),
        { source: 'limitless' },
      );
      expect(bad).toEqual([
        {
          item: 'Limitless API, page 1',
          outcome: 'failed',
          error: 'the Limitless API refused the key (HTTP 401)',
        },
      ]);
      const busy = await startLimitlessServer({ apiKey: 'k', lifelogs: [apiLifelog(0)], tooMany: 10 });
      try {
        const outcomes = await importExport(
          h.deps,
          actorOf(t.accountId),
          fetchLimitlessLifelogs({ apiKey: 'k', baseUrl: busy.url, attempts: 3 }),
        );
        expect(outcomes).toEqual([
          {
            item: 'Limitless API, page 1',
            outcome: 'failed',
            error: 'the Limitless API answered HTTP 429 after 3 attempts',
          },
        ]);
      } finally {
        await busy.close();
      }
      const gone = await importExport(
        h.deps,
        actorOf(t.accountId),
        fetchLimitlessLifelogs({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9', attempts: 1 }),
      );
      expect(gone[0]).toMatchObject({
        outcome: 'failed',
        error: expect.stringMatching(/^the Limitless API could not be reached/),
      });
    });
  });
}
