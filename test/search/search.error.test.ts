import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useBeforeAll } from '../helpers/before-all.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { sendRaw } from '../helpers/send-raw.ts';

for (const dialect of DIALECTS) {
  describe(`POST /v1/search bad input (${dialect})`, () => {
    const h = useHarness(dialect);
    const tenant = useBeforeAll(() => h.tenant());

    const post = (body: unknown) => h.request('POST', '/v1/search', { key: tenant.liveKey, body });

    it('requires a query', async () => {
      const res = await post({});
      expectApiError(res, 400, 'parameter_missing');
      expect(res.body.error.param).toBe('query');
    });

    it.each([
      ['empty', ''],
      ['whitespace only', ' \t\n '],
      ['longer than 1000 characters', 'a'.repeat(1001)],
      ['1001 emoji (code points, not UTF-16 units)', '🎉'.repeat(1001)],
      ['not a string', 42],
    ])('refuses a query that is %s', async (_, query) => {
      const res = await post({ query });
      expectApiError(res, 400, 'parameter_invalid');
      expect(res.body.error.param).toBe('query');
    });

    it('accepts exactly 1000 characters (counted as code points)', async () => {
      expect((await post({ query: '🎉'.repeat(1000) })).status).toBe(200);
      expect((await post({ query: 'budget '.repeat(143).slice(0, 1000) })).status).toBe(200);
    });

    it.each([0, 51, -1, 1.5, '10', null])('refuses limit %j', async (limit) => {
      const res = await post({ query: 'budget', limit });
      expectApiError(res, 400, 'parameter_invalid');
      expect(res.body.error.param).toBe('limit');
    });

    it.each([-0.1, 1.1, '0.5'])('refuses min_relevance %j', async (minRelevance) => {
      const res = await post({ query: 'budget', min_relevance: minRelevance });
      expectApiError(res, 400, 'parameter_invalid');
      expect(res.body.error.param).toBe('min_relevance');
    });

    it.each([
      ['from', '2026-02-30'],
      ['from', 'yesterday'],
      ['to', '2026-01-05T10:00:00'],
      ['to', 20260105],
    ])('refuses %s = %j', async (param, value) => {
      const res = await post({ query: 'budget', [param]: value });
      expectApiError(res, 400, 'parameter_invalid');
      expect(res.body.error.param).toBe(param);
    });

    it('refuses unknown body fields so typos surface', async () => {
      const res = await post({ query: 'budget', limt: 5 });
      expectApiError(res, 400, 'parameter_unknown');
      expect(res.body.error.param).toBe('limt');
    });

    it('refuses malformed JSON, a non-object body and other media types', async () => {
      expectApiError(
        await sendRaw(h, 'POST', '/v1/search', tenant.liveKey, '{"query": ', 'application/json'),
        400,
        'body_invalid_json',
      );
      expectApiError(await post(['budget']), 400, 'parameter_invalid');
      expectApiError(
        await sendRaw(
          h,
          'POST',
          '/v1/search',
          tenant.liveKey,
          'query=budget',
          'application/x-www-form-urlencoded',
        ),
        415,
        'unsupported_media_type',
      );
    });

    it('answers GET with 405 and Allow: POST', async () => {
      const res = await h.request('GET', '/v1/search', { key: tenant.liveKey });
      expectApiError(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toContain('POST');
    });

    it('never fails on hostile query text (FTS/tsquery syntax, quotes, control characters)', async () => {
      for (const query of [
        '"unbalanced',
        'NEAR(a b) OR * AND NOT -x',
        "budget' OR 1=1 --",
        'a:* & !b | (c <-> d)',
        '\u0007\u001b budget',
        '%_\\',
        'ｆｕｌｌｗｉｄｔｈ ＢＵＤＧＥＴ',
        '⑴Ͱ ㈱ ﬁnance ²³',
      ]) {
        const res = await post({ query, min_relevance: 0 });
        expect(res.status, `${query}: ${res.text.slice(0, 200)}`).toBe(200);
      }
    });

    it('answers any Unicode query of valid length with 200 (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc
            .string({ unit: 'grapheme', minLength: 1, maxLength: 40 })
            .filter((q) => q.trim().length > 0 && !q.includes('\u0000')),
          async (query) => {
            const res = await post({ query, min_relevance: 0 });
            expect(res.status, `${JSON.stringify(query)}: ${res.text.slice(0, 200)}`).toBe(200);
          },
        ),
        { numRuns: 60 },
      );
    });
  });
}
