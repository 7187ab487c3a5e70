import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { freshId } from '../helpers/routes.ts';
import { createNote, listNotes, type NoteDetail, type NoteListItem } from './notes.fixtures.ts';

/** Every note of a key's data space, all pages. */
async function allNotes(h: Harness, key: string): Promise<NoteListItem[]> {
  const out: NoteListItem[] = [];
  for (let page = 1; ; page++) {
    const res = await listNotes(h, key, { page, per_page: 100 });
    out.push(...res.data);
    if (res.data.length < 100) return out;
  }
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect);

    describe('another account', () => {
      it("another account's note id is a 404 on GET, PATCH and DELETE, and the note is untouched", async () => {
        const owner = await h.tenant();
        const intruder = await h.tenant();
        const note = await createNote(h, owner.liveKey, { title: 'Private', tags: ['secret'] });
        for (const [method, body, suffix] of [
          ['GET', undefined, ''],
          ['GET', undefined, '?include=segments'],
          ['PATCH', { title: 'Hijacked', tags: ['pwned'] }, ''],
          ['DELETE', undefined, ''],
        ] as const) {
          const res = await h.request(method, `/v1/notes/${note.id}${suffix}`, {
            key: intruder.liveKey,
            body,
          });
          expectApiError(res, 404, 'resource_not_found');
        }
        const got = await h.request<NoteDetail>('GET', `/v1/notes/${note.id}`, { key: owner.liveKey });
        expect(got.status).toBe(200);
        expect(got.body).toMatchObject({ title: 'Private', tags: ['secret'] });
      });

      it("the 404 for another account's note reads exactly like the 404 for an id that never existed", async () => {
        const owner = await h.tenant();
        const intruder = await h.tenant();
        const note = await createNote(h, owner.liveKey);
        const missing = freshId('note_');
        for (const method of ['GET', 'DELETE'] as const) {
          const theirs = await h.request(method, `/v1/notes/${note.id}`, { key: intruder.liveKey });
          const none = await h.request(method, `/v1/notes/${missing}`, { key: intruder.liveKey });
          const strip = (b: { error: Record<string, string> }, id: string) => ({
            ...b.error,
            request_id: undefined,
            message: b.error.message!.replace(id, '<id>'),
          });
          expect(theirs.status).toBe(none.status);
          expect(strip(theirs.body, note.id)).toEqual(strip(none.body, missing));
        }
      });

      it("list, q and tag never return another account's notes", async () => {
        const a = await h.tenant();
        const b = await h.tenant();
        const mine = await createNote(h, a.liveKey, {
          transcript: 'Alice: the walrus budget',
          tags: ['shared'],
        });
        await createNote(h, b.liveKey, { transcript: 'Bob: the walrus budget', tags: ['shared'] });
        await createNote(h, b.liveKey, { transcript: 'Bob: only the narwhal', tags: ['bonly'] });
        expect((await allNotes(h, a.liveKey)).map((n) => n.id)).toEqual([mine.id]);
        expect((await listNotes(h, a.liveKey, { q: 'walrus' })).data.map((n) => n.id)).toEqual([mine.id]);
        expect((await listNotes(h, a.liveKey, { q: 'narwhal' })).meta.total).toBe(0);
        expect((await listNotes(h, a.liveKey, { tag: 'shared' })).data.map((n) => n.id)).toEqual([mine.id]);
        expect((await listNotes(h, a.liveKey, { tag: 'bonly' })).meta.total).toBe(0);
      });

      it('hostile q and tag values neither fail nor widen the result', async () => {
        const a = await h.tenant();
        const b = await h.tenant();
        await createNote(h, b.liveKey, { transcript: 'Bob: the walrus budget', tags: ['x'] });
        for (const value of ["' OR '1'='1", '" OR 1=1 --', '*', '%', '_', 'walrus OR narwhal', 'x%', '\\']) {
          for (const param of ['q', 'tag']) {
            const res = await listNotes(h, a.liveKey, { [param]: value });
            expect(res.meta.total, `${param}=${value}`).toBe(0);
          }
        }
      });
    });

    describe('test and live mode', () => {
      it('a test key cannot read, change or delete a live note, and does not list it', async () => {
        const t = await h.tenant();
        const live = await createNote(h, t.liveKey, {
          title: 'Live only',
          transcript: 'Alice: the okapi plan',
        });
        for (const [method, body] of [
          ['GET'],
          ['PATCH', { title: 'Changed by test key' }],
          ['DELETE'],
        ] as const) {
          const res = await h.request(method, `/v1/notes/${live.id}`, { key: t.testKey, body });
          expectApiError(res, 404, 'resource_not_found');
        }
        expect((await allNotes(h, t.testKey)).map((n) => n.id)).not.toContain(live.id);
        expect((await listNotes(h, t.testKey, { q: 'okapi' })).meta.total).toBe(0);
        const got = await h.request<NoteDetail>('GET', `/v1/notes/${live.id}`, { key: t.liveKey });
        expect(got.body.title).toBe('Live only');
      });

      it('a live key cannot read, change or delete a test note, and does not list it', async () => {
        const t = await h.tenant();
        const test = await createNote(h, t.testKey, {
          title: 'Test only',
          transcript: 'Alice: the quokka plan',
        });
        for (const [method, body] of [
          ['GET'],
          ['PATCH', { title: 'Changed by live key' }],
          ['DELETE'],
        ] as const) {
          const res = await h.request(method, `/v1/notes/${test.id}`, { key: t.liveKey, body });
          expectApiError(res, 404, 'resource_not_found');
        }
        expect((await allNotes(h, t.liveKey)).map((n) => n.id)).toEqual([]);
        expect((await listNotes(h, t.liveKey, { q: 'quokka' })).meta.total).toBe(0);
        const got = await h.request<NoteDetail>('GET', `/v1/notes/${test.id}`, { key: t.testKey });
        expect(got.body.title).toBe('Test only');
      });

      it('scoped keys follow their own mode too', async () => {
        const t = await h.tenant();
        const live = await createNote(h, t.liveKey);
        const testReader = await t.keyWithScopes(['notes:read'], 'test');
        const res = await h.request('GET', `/v1/notes/${live.id}`, { key: testReader });
        expectApiError(res, 404, 'resource_not_found');
      });

      it('writes with a test key touch test data only', async () => {
        const t = await h.tenant();
        const liveBefore = await allNotes(h, t.liveKey);
        const testBefore = await allNotes(h, t.testKey);
        const created = await createNote(h, t.testKey, { title: 'Test write' });
        expect((await allNotes(h, t.testKey)).length).toBe(testBefore.length + 1);
        expect(await allNotes(h, t.liveKey)).toEqual(liveBefore);
        const row = await h.db.db
          .selectFrom('notes')
          .select('mode')
          .where('id', '=', created.id)
          .executeTakeFirst();
        expect(row?.mode).toBe('test');
      });
    });

    describe('test-mode seed data', () => {
      it('a test key lists the seeded mock data set: ≥ 20 notes, several tags, spread over weeks', async () => {
        const t = await h.tenant();
        const notes = await allNotes(h, t.testKey);
        expect(notes.length).toBeGreaterThanOrEqual(20);
        expect((await listNotes(h, t.testKey)).meta.total).toBe(notes.length);
        const tags = new Set(notes.flatMap((n) => n.tags.map((tag) => tag.toLowerCase())));
        expect(tags.size).toBeGreaterThanOrEqual(3);
        const times = notes.map((n) => Date.parse(n.created_at));
        const spanDays = (Math.max(...times) - Math.min(...times)) / 86_400_000;
        expect(spanDays).toBeGreaterThan(30);
        expect(spanDays).toBeLessThanOrEqual(61);
      });

      it('seeded notes have transcripts, speakers, highlights and action items in both states', async () => {
        const t = await h.tenant();
        const notes = await allNotes(h, t.testKey);
        const details: NoteDetail[] = [];
        for (const n of notes) {
          const res = await h.request<NoteDetail>('GET', `/v1/notes/${n.id}`, { key: t.testKey });
          expect(res.status).toBe(200);
          details.push(res.body);
        }
        for (const d of details) {
          expect(d.transcript.length).toBeGreaterThan(0);
          expect(d.transcript.split('\n').every((line) => /^[^:\n]+: \S/.test(line))).toBe(true);
          expect(d.speakers.length).toBeGreaterThan(0);
        }
        expect(details.some((d) => d.highlights.length > 0)).toBe(true);
        const statuses = new Set(details.flatMap((d) => d.action_items.map((a) => a.status)));
        expect([...statuses].sort()).toEqual(['completed', 'pending']);
      });

      it('the seed is deterministic across accounts and seeded once', async () => {
        const a = await h.tenant();
        const b = await h.tenant();
        const shape = (ns: NoteListItem[]) => ns.map((n) => ({ title: n.title, tags: n.tags }));
        const first = await allNotes(h, a.testKey);
        expect(shape(await allNotes(h, b.testKey))).toEqual(shape(first));
        // A second test key of the same account sees the same space, not a second copy.
        const second = await a.keyWithScopes(['notes:read'], 'test');
        expect((await allNotes(h, second)).map((n) => n.id)).toEqual(first.map((n) => n.id));
        expect((await allNotes(h, a.testKey)).length).toBe(first.length);
      });

      it('the seed stays out of the live space', async () => {
        const t = await h.tenant();
        await allNotes(h, t.testKey);
        expect(await allNotes(h, t.liveKey)).toEqual([]);
      });
    });
  });
}
