import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Tenant, useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { createNoteWithItems, type Space, storedItem } from './factories.ts';

const live = (t: Tenant): Space => ({ accountId: t.accountId, mode: 'live' });

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect);

    describe('GET /v1/action-items', () => {
      it.each([
        ['status', 'done'],
        ['status', 'PENDING'],
        ['status', 'pending,completed'],
        ['page', '0'],
        ['page', 'two'],
        ['per_page', '0'],
        ['per_page', '101'],
        ['per_page', '1.5'],
      ])('400 parameter_invalid naming %s for %s', async (param, value) => {
        const t = await h.tenant();
        const res = await h.request('GET', `/v1/action-items?${param}=${encodeURIComponent(value)}`, {
          key: t.liveKey,
        });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.param).toBe(param);
        expect(res.body.error.message).toContain(param);
      });

      it('names the allowed status values in the message', async () => {
        const t = await h.tenant();
        const res = await h.request('GET', '/v1/action-items?status=open', { key: t.liveKey });
        expect(res.body.error.message).toMatch(/pending.*completed.*all/);
      });

      it('ignores unknown query parameters', async () => {
        const t = await h.tenant();
        await createNoteWithItems(h.db.db, live(t), [{}]);
        const res = await h.request('GET', '/v1/action-items?sort=asc&statuss=pending', { key: t.liveKey });
        expect(res.status).toBe(200);
        expect(res.body.meta.total).toBe(1);
      });
    });

    describe('PATCH /v1/action-items/:id', () => {
      const invalidBodies: [string, unknown, string, string][] = [
        ['an empty body object', {}, 'parameter_invalid', ''],
        ['an unknown field', { status: 'completed', done: true }, 'parameter_unknown', 'done'],
        ['a misspelled field alone', { stauts: 'completed' }, 'parameter_unknown', 'stauts'],
        ['an unknown status', { status: 'done' }, 'parameter_invalid', 'status'],
        ['status null', { status: null }, 'parameter_invalid', 'status'],
        ['status as a number', { status: 1 }, 'parameter_invalid', 'status'],
        ['empty text', { text: '' }, 'parameter_invalid', 'text'],
        ['whitespace-only text', { text: ' \n\t ' }, 'parameter_invalid', 'text'],
        ['text of 1001 code points', { text: '🎯'.repeat(1001) }, 'parameter_invalid', 'text'],
        ['text with a control character', { text: 'bad\u0007bell' }, 'parameter_invalid', 'text'],
        ['text with DEL', { text: 'bad\u007f' }, 'parameter_invalid', 'text'],
        ['an impossible date', { due: '2026-02-30' }, 'parameter_invalid', 'due'],
        ['a date without zero padding', { due: '2026-1-5' }, 'parameter_invalid', 'due'],
        ['a date-time instead of a date', { due: '2026-12-04T10:00:00Z' }, 'parameter_invalid', 'due'],
        ['a non-leap 29 February', { due: '2027-02-29' }, 'parameter_invalid', 'due'],
        ['an assignee of 201 code points', { assignee: 'é'.repeat(201) }, 'parameter_invalid', 'assignee'],
        ['an empty assignee', { assignee: '   ' }, 'parameter_invalid', 'assignee'],
        ['an assignee with a newline', { assignee: 'Maya\nChen' }, 'parameter_invalid', 'assignee'],
        ['an assignee with a tab', { assignee: 'Maya\tChen' }, 'parameter_invalid', 'assignee'],
      ];

      it.each(invalidBodies)('400 for %s, and the item is unchanged', async (_, body, code, param) => {
        const t = await h.tenant();
        const { items } = await createNoteWithItems(h.db.db, live(t), [
          { text: 'Original', due: '2026-12-04' },
        ]);
        const res = await h.request('PATCH', `/v1/action-items/${items[0]!.id}`, { key: t.liveKey, body });
        expectApiError(res, 400, code);
        if (param) expect(res.body.error.param).toBe(param);
        else expect(res.body.error).not.toHaveProperty('param');
        expect(await storedItem(h.db.db, items[0]!.id)).toEqual(items[0]);
      });

      // A field that is present with the wrong type is invalid, not missing.
      it.each([
        ['text', null],
        ['text', ['a']],
        ['due', 20261204],
        ['assignee', 42],
      ])('400 parameter_invalid (not parameter_missing) for %s given as %j', async (param, value) => {
        const t = await h.tenant();
        const { items } = await createNoteWithItems(h.db.db, live(t), [{}]);
        const res = await h.request('PATCH', `/v1/action-items/${items[0]!.id}`, {
          key: t.liveKey,
          body: { [param]: value },
        });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.param).toBe(param);
      });

      it('400 body_invalid_json for malformed JSON', async () => {
        const t = await h.tenant();
        const { items } = await createNoteWithItems(h.db.db, live(t), [{}]);
        const res = await h.request('PATCH', `/v1/action-items/${items[0]!.id}`, {
          key: t.liveKey,
          raw: '{"status": "completed"',
          headers: { 'content-type': 'application/json' },
        });
        expectApiError(res, 400, 'body_invalid_json');
      });

      it.each([
        ['an array', '[{"status":"completed"}]'],
        ['a string', '"completed"'],
        ['null', 'null'],
      ])('400 when the body is %s instead of an object', async (_, raw) => {
        const t = await h.tenant();
        const { items } = await createNoteWithItems(h.db.db, live(t), [{}]);
        const res = await h.request('PATCH', `/v1/action-items/${items[0]!.id}`, {
          key: t.liveKey,
          raw,
          headers: { 'content-type': 'application/json' },
        });
        expectApiError(res, 400, 'parameter_invalid');
      });

      it('400 when there is no body at all', async () => {
        const t = await h.tenant();
        const { items } = await createNoteWithItems(h.db.db, live(t), [{}]);
        const res = await h.request('PATCH', `/v1/action-items/${items[0]!.id}`, { key: t.liveKey });
        expectApiError(res, 400);
      });

      it('415 unsupported_media_type for a non-JSON content type', async () => {
        const t = await h.tenant();
        const { items } = await createNoteWithItems(h.db.db, live(t), [{}]);
        const res = await h.request('PATCH', `/v1/action-items/${items[0]!.id}`, {
          key: t.liveKey,
          raw: 'status=completed',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        expectApiError(res, 415, 'unsupported_media_type');
        expect((await storedItem(h.db.db, items[0]!.id)).status).toBe('pending');
      });

      it('413 payload_too_large for a body over the limit', async () => {
        const t = await h.tenant();
        const { items } = await createNoteWithItems(h.db.db, live(t), [{}]);
        const res = await h.request('PATCH', `/v1/action-items/${items[0]!.id}`, {
          key: t.liveKey,
          body: { text: 'x'.repeat(h.deps.config.maxBodyBytes + 1) },
        });
        expectApiError(res, 413, 'payload_too_large');
      });

      it('404 resource_not_found for an id that does not exist, naming the id', async () => {
        const t = await h.tenant();
        const id = 'ai_0000000000000000000000AB';
        const res = await h.request('PATCH', `/v1/action-items/${id}`, {
          key: t.liveKey,
          body: { status: 'completed' },
        });
        expectApiError(res, 404, 'resource_not_found');
        expect(res.body.error.message).toContain(id);
      });

      it('404 for a note id or a malformed id in the action item path', async () => {
        const t = await h.tenant();
        const { noteId } = await createNoteWithItems(h.db.db, live(t), [{}]);
        for (const id of [noteId, 'not-an-id', '%20']) {
          const res = await h.request('PATCH', `/v1/action-items/${id}`, {
            key: t.liveKey,
            body: { text: 'x' },
          });
          expectApiError(res, 404, 'resource_not_found');
        }
      });

      it('validates the body before looking the id up (400, not 404, for a bad body on an unknown id)', async () => {
        const t = await h.tenant();
        const res = await h.request('PATCH', '/v1/action-items/ai_0000000000000000000000AB', {
          key: t.liveKey,
          body: { status: 'archived' },
        });
        expectApiError(res, 400, 'parameter_invalid');
      });

      it('405 method_not_allowed with Allow for other methods on an item', async () => {
        const t = await h.tenant();
        const { items } = await createNoteWithItems(h.db.db, live(t), [{}]);
        const res = await h.request('DELETE', `/v1/action-items/${items[0]!.id}`, { key: t.liveKey });
        expectApiError(res, 405, 'method_not_allowed');
        expect(res.headers.get('allow')).toContain('PATCH');
        expect(await storedItem(h.db.db, items[0]!.id)).toEqual(items[0]);
      });
    });
  });
}
