import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { freshId } from '../helpers/routes.ts';
import { createNote, listNotes, type NoteDetail } from './notes.fixtures.ts';

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect);

    describe('unknown ids', () => {
      it.each([
        ['a fresh note id', () => freshId('note_')],
        ['an id of another type', () => freshId('ai_')],
        ['a malformed id', () => 'abc'],
        ['an id with SQL in it', () => encodeURIComponent("note_' OR '1'='1")],
        ['a very long id', () => `note_${'A'.repeat(5000)}`],
        ['an encoded NUL', () => 'note_%00'],
        ['an emoji', () => encodeURIComponent('😀')],
      ])('%s → 404 resource_not_found on GET, PATCH and DELETE', async (_, id) => {
        const t = await h.tenant();
        await createNote(h, t.liveKey);
        for (const [method, body] of [['GET'], ['PATCH', { title: 'x' }], ['DELETE']] as const) {
          const res = await h.request(method, `/v1/notes/${id()}`, { key: t.liveKey, body });
          expectApiError(res, 404, 'resource_not_found');
        }
        expect((await listNotes(h, t.liveKey)).meta.total).toBe(1);
      });
    });

    describe('GET /v1/notes parameters', () => {
      it.each([
        ['per_page', '0'],
        ['per_page', '101'],
        ['per_page', '-1'],
        ['per_page', '1e9'],
        ['per_page', '1000000000'],
        ['per_page', 'abc'],
        ['per_page', '2.5'],
        ['page', '0'],
        ['page', '-1'],
        ['page', 'two'],
        ['page', '99999999999999999999'],
      ])('%s=%s → 400 parameter_invalid naming the parameter', async (param, value) => {
        const t = await h.tenant();
        const res = await h.request('GET', `/v1/notes?${param}=${encodeURIComponent(value)}`, {
          key: t.liveKey,
        });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.param).toBe(param);
        expect(res.body.error.message).toContain(param);
      });

      it.each([
        ['from', '2026-02-30'],
        ['to', '2026-02-30'],
        ['from', '2026-13-01'],
        ['to', '2026-13-01'],
        ['from', 'yesterday'],
        ['to', 'yesterday'],
        ['from', '2026-01-05T25:00:00Z'],
        ['to', '05/01/2026'],
        ['from', '2026-1-5'],
        ['to', '1767600000'],
      ])('%s=%s → 400 naming the parameter', async (param, value) => {
        const t = await h.tenant();
        const res = await h.request('GET', `/v1/notes?${param}=${encodeURIComponent(value)}`, {
          key: t.liveKey,
        });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.param).toBe(param);
      });

      it('q longer than 1000 characters → 400 param q', async () => {
        const t = await h.tenant();
        const res = await h.request('GET', `/v1/notes?q=${'a'.repeat(1001)}`, { key: t.liveKey });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.param).toBe('q');
      });

      it.each([['q'], ['tag']])(
        '%s holding a NUL character → 400 naming it (PostgreSQL cannot compare it)',
        async (param) => {
          const t = await h.tenant();
          const res = await h.request('GET', `/v1/notes?${param}=a%00b`, { key: t.liveKey });
          expectApiError(res, 400, 'parameter_invalid');
          expect(res.body.error.param).toBe(param);
        },
      );

      it('GET /v1/notes/:id?include=bogus → 400 param include', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey);
        const res = await h.request('GET', `/v1/notes/${note.id}?include=bogus`, { key: t.liveKey });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.param).toBe('include');
      });
    });

    describe('POST /v1/notes', () => {
      const post = async (body: unknown) => {
        const t = await h.tenant();
        const res = await h.request('POST', '/v1/notes', { key: t.liveKey, body });
        return { res, t };
      };

      it('refuses a body with neither transcript nor segments, or both', async () => {
        for (const body of [
          {},
          { title: 'Only a title' },
          {
            transcript: 'Alice: hi',
            segments: [{ speaker: 'A', start_ms: 0, end_ms: 1, text: 'hi' }],
          },
        ]) {
          const { res, t } = await post(body);
          expect(res.status, JSON.stringify(body)).toBe(400);
          expectApiError(res);
          expect((await listNotes(h, t.liveKey)).meta.total).toBe(0);
        }
      });

      it.each([[''], ['   '], ['\n\n\t'], ['WEBVTT\n\n']])(
        'refuses a transcript without text (%j) with param transcript',
        async (transcript) => {
          const { res } = await post({ transcript });
          expectApiError(res, 400);
          expect(res.body.error.param).toBe('transcript');
        },
      );

      it('refuses a transcript over 2 MB with 413 param transcript, and stores nothing', async () => {
        const { res, t } = await post({ transcript: `Alice: ${'a'.repeat(2 * 1024 * 1024)}` });
        expectApiError(res, 413, 'payload_too_large');
        expect(res.body.error.param).toBe('transcript');
        expect((await listNotes(h, t.liveKey)).meta.total).toBe(0);
      });

      it('counts the 2 MB in UTF-8 bytes, not characters', async () => {
        const { res } = await post({ transcript: `Alice: ${'€'.repeat(800_000)}` });
        expectApiError(res, 413, 'payload_too_large');
        expect(res.body.error.param).toBe('transcript');
      });

      it.each([
        [{ transcript: 5 }, 'transcript'],
        [{ transcript: null }, 'transcript'],
        [{ transcript: ['Alice: hi'] }, 'transcript'],
        [{ transcript: 'Alice: hi', title: 42 }, 'title'],
        [{ transcript: 'Alice: hi', title: '' }, 'title'],
        [{ transcript: 'Alice: hi', title: 'x'.repeat(201) }, 'title'],
        [{ transcript: 'Alice: hi', title: 'bell\u0007' }, 'title'],
        [{ transcript: 'Alice: hi', tags: 'a,b' }, 'tags'],
        [{ transcript: 'Alice: hi', tags: [''] }, 'tags.0'],
        [{ transcript: 'Alice: hi', tags: ['ok', 7] }, 'tags.1'],
        [{ transcript: 'Alice: hi', tags: Array.from({ length: 26 }, (_, i) => `t${i}`) }, 'tags'],
        [{ transcript: 'Alice: hi', created_at: '2026-02-30T10:00:00Z' }, 'created_at'],
        [{ transcript: 'Alice: hi', created_at: '2026-01-05T10:00:00' }, 'created_at'],
        [{ transcript: 'Alice: hi', created_at: 'yesterday' }, 'created_at'],
        [{ transcript: 'Alice: hi', created_at: 1767600000 }, 'created_at'],
        [{ transcript: 'Alice: hi', duration_seconds: -1 }, 'duration_seconds'],
        [{ transcript: 'Alice: hi', duration_seconds: 1.5 }, 'duration_seconds'],
        [{ transcript: 'Alice: hi', duration_seconds: '60' }, 'duration_seconds'],
        [{ transcript: 'Alice: hi', speakers: [{ label: 'Alice' }] }, 'speakers.0.name'],
        [{ transcript: 'Alice: hi', speakers: { Alice: 'Alice Smith' } }, 'speakers'],
        [{ segments: [] }, 'segments'],
        [{ segments: [{ speaker: 'A', start_ms: '0', end_ms: 1, text: 'hi' }] }, 'segments.0.start_ms'],
        [{ segments: [{ speaker: 'A', start_ms: -5, end_ms: 1, text: 'hi' }] }, 'segments.0.start_ms'],
        [{ segments: [{ speaker: 'A', start_ms: 0, end_ms: 1, text: '  ' }] }, 'segments.0.text'],
        [{ segments: [{ speaker: '', start_ms: 0, end_ms: 1, text: 'hi' }] }, 'segments.0.speaker'],
        [
          { segments: [{ speaker: 'A', start_ms: 0, end_ms: 1, text: 'nul \u0000 inside' }] },
          'segments.0.text',
        ],
        [{ transcript: 'Alice: nul \u0000 inside' }, 'transcript'],
        [
          {
            segments: [
              { speaker: 'A', start_ms: 0, end_ms: 1000, text: 'ok' },
              { speaker: 'B', start_ms: 5000, end_ms: 4000, text: 'backwards' },
            ],
          },
          'segments.1.end_ms',
        ],
      ])('%j → 400 with param %s', async (body, param) => {
        const { res, t } = await post(body);
        expectApiError(res, 400);
        expect(['parameter_invalid', 'parameter_missing']).toContain(res.body.error.code);
        expect(res.body.error.param).toBe(param);
        expect((await listNotes(h, t.liveKey)).meta.total).toBe(0);
      });

      it.each([
        [{ transcript: 'Alice: hi', colour: 'red' }, 'colour'],
        [{ transcript: 'Alice: hi', Title: 'Capitalised' }, 'Title'],
        [
          { segments: [{ speaker: 'A', start_ms: 0, end_ms: 1, text: 'hi', confidence: 0.9 }] },
          'segments.0.confidence',
        ],
        [
          { transcript: 'Alice: hi', speakers: [{ label: 'Alice', name: 'A', email: 'a@x' }] },
          'speakers.0.email',
        ],
      ])('%j → 400 parameter_unknown naming %s', async (body, param) => {
        const { res } = await post(body);
        expectApiError(res, 400, 'parameter_unknown');
        expect(res.body.error.param).toBe(param);
        expect(res.body.error.message).toContain(param);
      });
    });

    describe('PATCH /v1/notes/:id', () => {
      const patch = async (body: unknown) => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey, { title: 'Original', tags: ['orig'] });
        const res = await h.request('PATCH', `/v1/notes/${note.id}`, { key: t.liveKey, body });
        const after = await h.request<NoteDetail>('GET', `/v1/notes/${note.id}`, { key: t.liveKey });
        return { res, after: after.body };
      };

      it('{} → 400 (at least one of title, tags), nothing changes', async () => {
        const { res, after } = await patch({});
        expectApiError(res, 400);
        expect(res.body.error.message).toMatch(/title/);
        expect(after).toMatchObject({ title: 'Original', tags: ['orig'] });
      });

      it.each([
        [{ titel: 'typo' }, 'titel'],
        [{ title: 'ok', summary: 'no' }, 'summary'],
        [{ tags: ['a'], id: 'note_x' }, 'id'],
      ])('%j → 400 parameter_unknown naming %s, nothing changes', async (body, param) => {
        const { res, after } = await patch(body);
        expectApiError(res, 400, 'parameter_unknown');
        expect(res.body.error.param).toBe(param);
        expect(res.body.error.message).toContain(param);
        expect(after).toMatchObject({ title: 'Original', tags: ['orig'] });
      });

      it.each([
        [{ title: '' }, 'title'],
        [{ title: '   ' }, 'title'],
        [{ title: 'a'.repeat(201) }, 'title'],
        [{ title: `  ${'a'.repeat(201)}  ` }, 'title'],
        [{ title: '😀'.repeat(201) }, 'title'],
        [{ title: 'line\nbreak' }, 'title'],
        [{ title: 'tab\there' }, 'title'],
        [{ title: 'nul\u0000' }, 'title'],
        [{ title: 'del\u007f' }, 'title'],
        [{ title: 'esc\u001b[31m' }, 'title'],
        [{ title: null }, 'title'],
        [{ title: 5 }, 'title'],
        [{ title: ['a'] }, 'title'],
        [{ tags: 'one' }, 'tags'],
        [{ tags: null }, 'tags'],
        [{ tags: [null] }, 'tags.0'],
        [{ tags: ['ok', ''] }, 'tags.1'],
        [{ tags: ['   '] }, 'tags.0'],
        [{ tags: ['t'.repeat(51)] }, 'tags.0'],
        [{ tags: ['😀'.repeat(51)] }, 'tags.0'],
        [{ tags: ['bell\u0007'] }, 'tags.0'],
        [{ tags: ['new\nline'] }, 'tags.0'],
        [{ tags: Array.from({ length: 26 }, (_, i) => `tag${i}`) }, 'tags'],
        [{ tags: [{ name: 'x' }] }, 'tags.0'],
      ])('%j → 400 parameter_invalid with param %s, nothing changes', async (body, param) => {
        const { res, after } = await patch(body);
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.param).toBe(param);
        expect(after).toMatchObject({ title: 'Original', tags: ['orig'] });
      });

      it('a valid title with an invalid tag changes nothing', async () => {
        const { res, after } = await patch({ title: 'Changed', tags: ['ok', ''] });
        expectApiError(res, 400, 'parameter_invalid');
        expect(after).toMatchObject({ title: 'Original', tags: ['orig'] });
      });

      it('validates the body before looking up the id (400, not 404, for an unknown id)', async () => {
        const t = await h.tenant();
        const res = await h.request('PATCH', `/v1/notes/${freshId('note_')}`, {
          key: t.liveKey,
          body: { title: '' },
        });
        expectApiError(res, 400, 'parameter_invalid');
      });

      it('a JSON body that is not an object → 400', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey);
        for (const raw of ['[]', '"title"', '42', 'null', 'true']) {
          const res = await h.request('PATCH', `/v1/notes/${note.id}`, {
            key: t.liveKey,
            raw,
            headers: { 'content-type': 'application/json' },
          });
          expectApiError(res, 400);
        }
      });
    });
  });
}
