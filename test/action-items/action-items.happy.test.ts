import { describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/lib/ids.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, type Tenant, useHarness } from '../helpers/harness.ts';
import {
  type ActionItemView,
  AI_ID,
  createNoteWithItems,
  ISO_UTC,
  minutesAgo,
  type Space,
  storedItem,
} from './factories.ts';

type Page = { data: ActionItemView[]; meta: { page: number; per_page: number; total: number } };

const live = (t: Tenant): Space => ({ accountId: t.accountId, mode: 'live' });

async function list(h: Harness, key: string, query: Record<string, string | number> = {}): Promise<Page> {
  const qs = new URLSearchParams(
    Object.entries(query).map(([k, v]) => [k, String(v)] as [string, string]),
  ).toString();
  const res = await h.request<Page>('GET', `/v1/action-items${qs ? `?${qs}` : ''}`, { key });
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  return res.body;
}

async function patch(h: Harness, key: string, id: string, body: unknown): Promise<ActionItemView> {
  const res = await h.request<ActionItemView>('PATCH', `/v1/action-items/${id}`, { key, body });
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  return res.body;
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect);

    describe('GET /v1/action-items', () => {
      it('lists every item of the account across notes, newest first, in list form', async () => {
        const t = await h.tenant();
        const a = await createNoteWithItems(h.db.db, live(t), [
          { text: 'Send the deck', assignee: 'Maya Chen', due: '2026-12-04', created_at: minutesAgo(30) },
          {
            text: 'Book the room',
            status: 'completed',
            created_at: minutesAgo(20),
            completed_at: minutesAgo(5),
          },
        ]);
        const b = await createNoteWithItems(h.db.db, live(t), [
          { text: 'Call the vendor', created_at: minutesAgo(10) },
        ]);

        const page = await list(h, t.liveKey);

        expect(page.meta).toEqual({ page: 1, per_page: 20, total: 3 });
        expect(page.data.map((i) => i.text)).toEqual(['Call the vendor', 'Book the room', 'Send the deck']);
        expect(page.data[0]).toEqual({
          id: b.items[0]!.id,
          text: 'Call the vendor',
          status: 'pending',
          note_id: b.noteId,
          created_at: b.items[0]!.created_at,
        });
        expect(page.data[1]).toEqual({
          id: a.items[1]!.id,
          text: 'Book the room',
          status: 'completed',
          note_id: a.noteId,
          created_at: a.items[1]!.created_at,
          completed_at: a.items[1]!.completed_at,
        });
        expect(page.data[2]).toEqual({
          id: a.items[0]!.id,
          text: 'Send the deck',
          assignee: 'Maya Chen',
          due: '2026-12-04',
          status: 'pending',
          note_id: a.noteId,
          created_at: a.items[0]!.created_at,
        });
        for (const item of page.data) {
          expect(item.id).toMatch(AI_ID);
          expect(item.created_at).toMatch(ISO_UTC);
          expect(Object.values(item)).not.toContain(null);
        }
      });

      it('is empty with total 0 for an account without items', async () => {
        const t = await h.tenant();
        expect(await list(h, t.liveKey)).toEqual({ data: [], meta: { page: 1, per_page: 20, total: 0 } });
      });

      it('filters by status: pending, completed, all (the default)', async () => {
        const t = await h.tenant();
        await createNoteWithItems(h.db.db, live(t), [
          { text: 'p1', created_at: minutesAgo(4) },
          { text: 'c1', status: 'completed', created_at: minutesAgo(3) },
          { text: 'p2', created_at: minutesAgo(2) },
          { text: 'c2', status: 'completed', created_at: minutesAgo(1) },
        ]);

        const pending = await list(h, t.liveKey, { status: 'pending' });
        expect(pending.data.map((i) => i.text)).toEqual(['p2', 'p1']);
        expect(pending.meta.total).toBe(2);
        expect(pending.data.every((i) => i.status === 'pending' && !('completed_at' in i))).toBe(true);

        const completed = await list(h, t.liveKey, { status: 'completed' });
        expect(completed.data.map((i) => i.text)).toEqual(['c2', 'c1']);
        expect(completed.data.every((i) => i.status === 'completed' && ISO_UTC.test(i.completed_at!))).toBe(
          true,
        );

        const all = await list(h, t.liveKey, { status: 'all' });
        expect(all.data.map((i) => i.text)).toEqual(['c2', 'p2', 'c1', 'p1']);
        expect((await list(h, t.liveKey)).data).toEqual(all.data);
      });

      it('breaks created_at ties by id descending, compared bytewise', async () => {
        const t = await h.tenant();
        const at = minutesAgo(1);
        // Bytewise 'a' (0x61) > 'Z' (0x5a) > 'A' (0x41); a locale collation would put 'a' before 'Z'.
        await createNoteWithItems(
          h.db.db,
          live(t),
          ['A', 'a', 'Z'].map((first) => ({ id: `ai_${first}${randomBase62(23)}`, created_at: at })),
        );
        const page = await list(h, t.liveKey);
        const got = page.data.map((i) => i.id);
        expect(got).toEqual([...got].sort((x, y) => (x < y ? 1 : x > y ? -1 : 0)));
        expect(got.map((id) => id[3])).toEqual(['a', 'Z', 'A']);
      });

      it('pages with page and per_page; meta.total counts all matches; past the end is empty', async () => {
        const t = await h.tenant();
        await createNoteWithItems(
          h.db.db,
          live(t),
          Array.from({ length: 5 }, (_, i) => ({ text: `item ${i}`, created_at: minutesAgo(i + 1) })),
        );

        const first = await list(h, t.liveKey, { per_page: 2 });
        expect(first.data.map((i) => i.text)).toEqual(['item 0', 'item 1']);
        expect(first.meta).toEqual({ page: 1, per_page: 2, total: 5 });
        const third = await list(h, t.liveKey, { per_page: 2, page: 3 });
        expect(third.data.map((i) => i.text)).toEqual(['item 4']);
        expect(third.meta).toEqual({ page: 3, per_page: 2, total: 5 });
        const past = await list(h, t.liveKey, { per_page: 2, page: 4 });
        expect(past).toEqual({ data: [], meta: { page: 4, per_page: 2, total: 5 } });
        expect((await list(h, t.liveKey, { per_page: 100 })).data).toHaveLength(5);
      });

      it('Filters by note_id, combined with status', async () => {
        const t = await h.tenant();
        const a = await createNoteWithItems(h.db.db, live(t), [
          { text: 'a1' },
          { text: 'a2', status: 'completed' },
        ]);
        await createNoteWithItems(h.db.db, live(t), [{ text: 'b1' }]);

        const ofA = await list(h, t.liveKey, { note_id: a.noteId });
        expect(ofA.meta.total).toBe(2);
        expect(ofA.data.every((i) => i.note_id === a.noteId)).toBe(true);
        const pendingOfA = await list(h, t.liveKey, { note_id: a.noteId, status: 'pending' });
        expect(pendingOfA.data.map((i) => i.text)).toEqual(['a1']);
        expect((await list(h, t.liveKey, { note_id: 'note_000000000000000000000000' })).meta.total).toBe(0);
      });

      it('Filters by assignee: exact name, case-insensitive (Unicode too), not a substring', async () => {
        const t = await h.tenant();
        await createNoteWithItems(h.db.db, live(t), [
          { text: 'm1', assignee: 'Maya Chen', created_at: minutesAgo(5) },
          { text: 'm2', assignee: 'maya chen', created_at: minutesAgo(4) },
          { text: 'mo', assignee: 'Maya Chenko', created_at: minutesAgo(3) },
          { text: 'c1', assignee: 'Chloé Martin', created_at: minutesAgo(2) },
          { text: 'none', created_at: minutesAgo(1) },
        ]);

        expect((await list(h, t.liveKey, { assignee: 'MAYA CHEN' })).data.map((i) => i.text)).toEqual([
          'm2',
          'm1',
        ]);
        expect((await list(h, t.liveKey, { assignee: ' maya chen ' })).meta.total).toBe(2);
        expect((await list(h, t.liveKey, { assignee: 'CHLOÉ MARTIN' })).data.map((i) => i.text)).toEqual([
          'c1',
        ]);
        expect((await list(h, t.liveKey, { assignee: 'Maya' })).meta.total).toBe(0);
        expect((await list(h, t.liveKey, { assignee: 'maya chen', status: 'completed' })).meta.total).toBe(0);
      });
    });

    describe('PATCH /v1/action-items/:id', () => {
      it('completing sets completed_at to now and returns the full item in list form', async () => {
        const t = await h.tenant();
        const { noteId, items } = await createNoteWithItems(h.db.db, live(t), [
          { text: 'Send the deck', assignee: 'Maya Chen', due: '2026-12-04' },
        ]);
        const before = Date.now();

        const item = await patch(h, t.liveKey, items[0]!.id, { status: 'completed' });

        expect(item).toEqual({
          id: items[0]!.id,
          text: 'Send the deck',
          assignee: 'Maya Chen',
          due: '2026-12-04',
          status: 'completed',
          note_id: noteId,
          created_at: items[0]!.created_at,
          completed_at: expect.stringMatching(ISO_UTC),
        });
        const at = Date.parse(item.completed_at!);
        expect(at).toBeGreaterThanOrEqual(before - 5);
        expect(at).toBeLessThanOrEqual(Date.now() + 5);
        expect((await list(h, t.liveKey, { status: 'completed' })).data).toEqual([item]);
      });

      it('completing an item that already is completed keeps its completed_at', async () => {
        const t = await h.tenant();
        const doneAt = minutesAgo(90);
        const { items } = await createNoteWithItems(h.db.db, live(t), [
          { status: 'completed', completed_at: doneAt },
        ]);

        const item = await patch(h, t.liveKey, items[0]!.id, { status: 'completed' });
        expect(item.completed_at).toBe(doneAt);
        const again = await patch(h, t.liveKey, items[0]!.id, { status: 'completed', text: 'Renamed' });
        expect(again).toMatchObject({ text: 'Renamed', status: 'completed', completed_at: doneAt });
      });

      it('back to pending removes completed_at, in the response and in storage', async () => {
        const t = await h.tenant();
        const { items } = await createNoteWithItems(h.db.db, live(t), [
          { status: 'completed', completed_at: minutesAgo(5) },
        ]);

        const item = await patch(h, t.liveKey, items[0]!.id, { status: 'pending' });
        expect(item.status).toBe('pending');
        expect(item).not.toHaveProperty('completed_at');
        expect((await storedItem(h.db.db, items[0]!.id)).completed_at).toBeNull();

        const recompleted = await patch(h, t.liveKey, items[0]!.id, { status: 'completed' });
        expect(Date.parse(recompleted.completed_at!)).toBeGreaterThan(Date.parse(items[0]!.completed_at!));
      });

      it('updates text (trimmed; newlines and tabs kept, length in code points), due and assignee', async () => {
        const t = await h.tenant();
        const { items } = await createNoteWithItems(h.db.db, live(t), [{}]);
        const id = items[0]!.id;

        const item = await patch(h, t.liveKey, id, {
          text: '  Draft the plan:\n\t1. budget\n\t2. hiring  ',
          due: '2028-02-29',
          assignee: '  Daniel Okafor ',
        });
        expect(item).toMatchObject({
          text: 'Draft the plan:\n\t1. budget\n\t2. hiring',
          due: '2028-02-29',
          assignee: 'Daniel Okafor',
          status: 'pending',
        });

        const emoji = '🎯'.repeat(1000);
        expect((await patch(h, t.liveKey, id, { text: emoji })).text).toBe(emoji);
        const longName = 'é'.repeat(200);
        expect((await patch(h, t.liveKey, id, { assignee: longName })).assignee).toBe(longName);
      });

      it('null clears due and assignee; they are omitted afterwards', async () => {
        const t = await h.tenant();
        const { items } = await createNoteWithItems(h.db.db, live(t), [
          { assignee: 'Maya Chen', due: '2026-12-04' },
        ]);

        const item = await patch(h, t.liveKey, items[0]!.id, { due: null, assignee: null });
        expect(item).not.toHaveProperty('due');
        expect(item).not.toHaveProperty('assignee');
        const [listed] = (await list(h, t.liveKey)).data;
        expect(listed).toEqual(item);
        const stored = await storedItem(h.db.db, items[0]!.id);
        expect([stored.due, stored.assignee]).toEqual([null, null]);
      });

      it('changes only the fields given', async () => {
        const t = await h.tenant();
        const { items } = await createNoteWithItems(h.db.db, live(t), [
          { text: 'Keep me', assignee: 'Maya Chen', due: '2026-12-04' },
        ]);
        const item = await patch(h, t.liveKey, items[0]!.id, { due: '2027-01-15' });
        expect(item).toMatchObject({
          text: 'Keep me',
          assignee: 'Maya Chen',
          due: '2027-01-15',
          status: 'pending',
        });
      });

      it('is visible in the note detail (embedded form)', async () => {
        const t = await h.tenant();
        const { noteId, items } = await createNoteWithItems(h.db.db, live(t), [{ text: 'Old' }]);
        await patch(h, t.liveKey, items[0]!.id, { text: 'New', status: 'completed', assignee: 'Grace Liu' });

        const note = await h.request('GET', `/v1/notes/${noteId}`, { key: t.liveKey });
        expect(note.status).toBe(200);
        expect(note.body.action_items).toEqual([
          { id: items[0]!.id, text: 'New', assignee: 'Grace Liu', status: 'completed' },
        ]);
      });

      it('a key with only actions:write may update; actions:read may list', async () => {
        const t = await h.tenant();
        const { items } = await createNoteWithItems(h.db.db, live(t), [{}]);
        const writer = await t.keyWithScopes(['actions:write']);
        const reader = await t.keyWithScopes(['actions:read']);
        expect((await patch(h, writer, items[0]!.id, { status: 'completed' })).status).toBe('completed');
        expect((await list(h, reader)).data[0]!.status).toBe('completed');
      });
    });
  });
}
