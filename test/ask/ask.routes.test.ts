import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { callFails, callOk, useMcpEndpoint } from '../mcp/mcp-helpers.ts';
import { addNote, MEETINGS, useTwoAccounts } from '../search/search.fixtures.ts';

const ROADMAP = [
  'Ann: Good morning, shall we begin with the agenda?',
  'Ben: The quarkonium detector upgrade ships in May, after the vendor delivers the new sensors.',
  'Ann: I decided the quarkonium calibration runs in June, once the detector upgrade is installed.',
  'Ben: Then the calibration team needs two more people for the summer.',
  'Ann: Lunch is in the usual place today.',
].join('\n');

const normalise = (s: string) => s.replace(/\s+/g, ' ').trim();

for (const dialect of DIALECTS) {
  describe(`POST /v1/ask (${dialect})`, () => {
    const h = useHarness(dialect);
    const mcp = useMcpEndpoint(h);
    const accounts = useTwoAccounts(h, {
      alice: ROADMAP,
      bob: 'Cat: Our quarkonium budget is tight this year, so the detector upgrade waits.\nDee: The quarkonium team needs two more people.',
      aliceTest: 'Eve: A quarkonium detector note that lives in the test data space only.',
    });

    const ask = (key: string | null, body: unknown) => h.request('POST', '/v1/ask', { key, body });

    it('answers one note with numbered citations whose quotes are verbatim', async () => {
      const res = await ask(accounts.alice.liveKey, {
        question: 'What did Ann decide about the quarkonium calibration?',
        note_id: accounts.aliceNote,
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ answered: true, mode: 'extractive' });
      expect(res.body.answer).toContain('June');
      expect(res.body.answer).not.toContain('Lunch');
      const transcript = normalise(ROADMAP);
      res.body.citations.forEach((c: Record<string, unknown>, i: number) => {
        expect(res.body.answer).toContain(`[${i + 1}]`);
        expect(c).toMatchObject({
          note_id: accounts.aliceNote,
          title: 'Quarkonium roadmap',
          created_at: expect.any(String),
        });
        expect(transcript).toContain(normalise(c.quote as string));
        expect(c.start_ms).toEqual(expect.any(Number));
      });
      expect(res.body.citations.length).toBeGreaterThan(0);
    });

    it('asks the whole data space when no note is named, and says so when nothing is relevant', async () => {
      const res = await ask(accounts.alice.liveKey, {
        question: 'When does the quarkonium detector upgrade ship?',
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body.answered).toBe(true);
      expect(new Set(res.body.citations.map((c: { note_id: string }) => c.note_id))).toEqual(
        new Set([accounts.aliceNote]),
      );
      const none = await ask(accounts.alice.liveKey, {
        question: 'What was said about the herbarium orchids?',
      });
      expect(none.status).toBe(200);
      expect(none.body).toEqual({
        answered: false,
        answer: expect.any(String),
        mode: 'extractive',
        citations: [],
      });
      const limited = await ask(accounts.alice.liveKey, {
        question: 'quarkonium detector upgrade calibration',
        max_citations: 1,
      });
      expect(limited.body.citations.length).toBeLessThanOrEqual(1);
    });

    it('puts the newest note first for a question about time', async () => {
      const carol = await h.tenant();
      // Other meetings, so the words of the question are rare in the space, as they are in real use.
      for (const m of Object.values(MEETINGS)) await addNote(h, carol, m);
      const older = await addNote(h, carol, {
        title: 'Zeppelin hangar, spring',
        created_at: '2026-03-02T09:00:00.000Z',
        transcript:
          'Ann: The zeppelin hangar inspection found loose rivets on the zeppelin hull, and the zeppelin hangar roof leaks.\nBen: The zeppelin hangar inspection is repeated in autumn.',
      });
      const newer = await addNote(h, carol, {
        title: 'Zeppelin hangar, autumn',
        created_at: '2026-10-05T09:00:00.000Z',
        transcript:
          'Ann: The October zeppelin hangar inspection found the zeppelin hull sound.\nBen: After that zeppelin hangar inspection the hangar doors were repaired too.',
      });
      const latest = await ask(carol.liveKey, {
        question: 'What did the latest zeppelin hangar inspection find?',
      });
      expect(latest.status, latest.text).toBe(200);
      const ids = latest.body.citations.map((c: { note_id: string }) => c.note_id);
      expect(new Set(ids)).toEqual(new Set([older, newer]));
      expect(ids[0]).toBe(newer);
      expect(ids.lastIndexOf(newer)).toBeLessThan(ids.indexOf(older));
    });

    it('rejects bad input with 400 and a param', async () => {
      const cases: [unknown, string][] = [
        [{}, 'question'],
        [{ question: '' }, 'question'],
        [{ question: '   ' }, 'question'],
        [{ question: 'x'.repeat(1001) }, 'question'],
        [{ question: 'ok', max_citations: 0 }, 'max_citations'],
        [{ question: 'ok', max_citations: 21 }, 'max_citations'],
        [{ question: 'ok', from: 'yesterday' }, 'from'],
        [{ question: 'ok', qestion: 'typo' }, 'qestion'],
      ];
      for (const [body, param] of cases) {
        const res = await ask(accounts.alice.liveKey, body);
        expectApiError(res, 400);
        expect(res.body.error.param, JSON.stringify(body)).toBe(param);
      }
      expect((await ask(accounts.alice.liveKey, { question: '😀'.repeat(1000) })).status).toBe(200);
      const bad = await h.request('POST', '/v1/ask', {
        key: accounts.alice.liveKey,
        raw: '{"question":',
        headers: { 'content-type': 'application/json' },
      });
      expectApiError(bad, 400, 'body_invalid_json');
    });

    it('answers a question in another language without failing', async () => {
      const res = await ask(accounts.alice.liveKey, {
        question: '¿Qué decidió Ann sobre la calibración?',
        note_id: accounts.aliceNote,
      });
      expect(res.status).toBe(200);
      expect(res.body.answered).toBe(false);
    });

    it('needs a valid key with the search scope', async () => {
      const body = { question: 'quarkonium' };
      const missing = await ask(null, body);
      expectApiError(missing, 401, 'api_key_missing');
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expectApiError(await ask('svc_sk_live_nope', body), 401);
      expectApiError(await ask(await accounts.alice.revokedKey(), body), 401, 'api_key_revoked');
      expectApiError(await ask(await accounts.alice.expiredKey(), body), 401, 'api_key_expired');
      const unscoped = await ask(await accounts.alice.keyWithScopes(['notes:read']), { question: '' });
      expectApiError(unscoped, 403, 'insufficient_scope');
      expect(unscoped.body.error.message).toContain('search');
      expect((await ask(await accounts.alice.keyWithScopes(['search']), body)).status).toBe(200);
    });

    it("never answers from another account's notes or the other data space", async () => {
      expectApiError(
        await ask(accounts.alice.liveKey, { question: 'quarkonium budget', note_id: accounts.bobNote }),
        404,
        'resource_not_found',
      );
      expectApiError(
        await ask(accounts.alice.liveKey, { question: 'quarkonium', note_id: accounts.aliceTestNote }),
        404,
        'resource_not_found',
      );
      expectApiError(
        await ask(accounts.alice.testKey, { question: 'quarkonium', note_id: accounts.aliceNote }),
        404,
        'resource_not_found',
      );
      const forBob = await ask(accounts.bob.liveKey, { question: 'quarkonium detector upgrade calibration' });
      expect(forBob.body.citations.every((c: { note_id: string }) => c.note_id === accounts.bobNote)).toBe(
        true,
      );
      const forTest = await ask(accounts.alice.testKey, { question: 'quarkonium detector note' });
      expect(forTest.body.citations.every((c: { note_id: string }) => c.note_id !== accounts.aliceNote)).toBe(
        true,
      );
    });

    it('ask_notes over MCP answers what POST /v1/ask answers', async () => {
      const client = await mcp.connect(accounts.alice.liveKey, 'modern');
      const args = {
        question: 'What did Ann decide about the quarkonium calibration?',
        note_id: accounts.aliceNote,
      };
      expect(await callOk(client, 'ask_notes', args)).toEqual((await ask(accounts.alice.liveKey, args)).body);
      await callFails(
        client,
        'ask_notes',
        { question: 'quarkonium', note_id: accounts.bobNote },
        'resource_not_found',
      );
    });

    it('declares its scope in the OpenAPI document', async () => {
      const doc = (await (await h.app.request('/v1/openapi.json')).json()) as any;
      expect(doc.paths['/v1/ask'].post.description).toContain('Scope: `search`.');
    });
  });
}
