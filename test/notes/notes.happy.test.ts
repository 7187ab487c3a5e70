import { describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import {
  addNoteParts,
  byCreatedDescIdDesc,
  countOwnedRows,
  createNote,
  DETAIL_KEYS,
  ISO_UTC,
  insertNoteRow,
  LIST_KEYS,
  listNotes,
  NOTE_ID,
  type NoteDetail,
  OPTIONAL_DETAIL_KEYS,
  OPTIONAL_LIST_KEYS,
} from './notes.fixtures.ts';

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect);

    describe('GET /v1/notes', () => {
      it('lists an empty account as data [] with meta {page 1, per_page 20, total 0}', async () => {
        const t = await h.tenant();
        expect(await listNotes(h, t.liveKey)).toEqual({
          data: [],
          meta: { page: 1, per_page: 20, total: 0 },
        });
      });

      it('orders by created_at desc, then id desc', async () => {
        const t = await h.tenant();
        const same = '2026-03-01T10:00:00.000Z';
        const notes = [
          await createNote(h, t.liveKey, { created_at: '2026-03-02T10:00:00Z' }),
          await createNote(h, t.liveKey, { created_at: same }),
          await createNote(h, t.liveKey, { created_at: same }),
          await createNote(h, t.liveKey, { created_at: same }),
          await createNote(h, t.liveKey, { created_at: same }),
          await createNote(h, t.liveKey, { created_at: '2026-02-28T23:59:59.999Z' }),
        ];
        const { data } = await listNotes(h, t.liveKey);
        expect(data.map((n) => n.id)).toEqual([...notes].sort(byCreatedDescIdDesc).map((n) => n.id));
        expect(data[0]!.created_at).toBe('2026-03-02T10:00:00.000Z');
        expect(data.at(-1)!.created_at).toBe('2026-02-28T23:59:59.999Z');
      });

      it('breaks created_at ties by comparing ids bytewise (uppercase sorts before lowercase)', async () => {
        const t = await h.tenant();
        // Two ids whose order differs between bytewise and case-insensitive collation.
        const lower = `note_a${'0'.repeat(23)}`;
        const upper = `note_B${'0'.repeat(23)}`;
        const space = { accountId: t.accountId, mode: 'live' as const };
        await insertNoteRow(h, space, { id: upper, created_at: '2026-03-01T10:00:00.000Z' });
        await insertNoteRow(h, space, { id: lower, created_at: '2026-03-01T10:00:00.000Z' });
        const { data } = await listNotes(h, t.liveKey);
        expect(data.map((n) => n.id)).toEqual([lower, upper]);
      });

      it('pages with page/per_page; meta.total counts every match; a page past the end is data []', async () => {
        const t = await h.tenant();
        for (let i = 0; i < 5; i++) {
          await createNote(h, t.liveKey, { created_at: `2026-01-0${i + 1}T12:00:00Z` });
        }
        const all = await listNotes(h, t.liveKey);
        expect(all.meta).toEqual({ page: 1, per_page: 20, total: 5 });
        const pages = [];
        for (const page of [1, 2, 3]) {
          const res = await listNotes(h, t.liveKey, { page, per_page: 2 });
          expect(res.meta).toEqual({ page, per_page: 2, total: 5 });
          pages.push(...res.data.map((n) => n.id));
        }
        expect(pages).toEqual(all.data.map((n) => n.id));
        expect(await listNotes(h, t.liveKey, { page: 4, per_page: 2 })).toEqual({
          data: [],
          meta: { page: 4, per_page: 2, total: 5 },
        });
        expect((await listNotes(h, t.liveKey, { page: 1_000_000, per_page: 100 })).data).toEqual([]);
        // Any page a client can mean is a page past the end, not an error (API.md: page ≥ 1).
        for (const page of [1_000_001, 90_071_992_547_409]) {
          expect(await listNotes(h, t.liveKey, { page, per_page: 100 })).toEqual({
            data: [],
            meta: { page, per_page: 100, total: 5 },
          });
        }
        expect((await listNotes(h, t.liveKey, { per_page: 1 })).data).toHaveLength(1);
        expect((await listNotes(h, t.liveKey, { per_page: 100 })).data).toHaveLength(5);
      });

      it('list items carry exactly the list fields: no transcript, no recording_id for a note made from text', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey, {
          title: 'Planning',
          tags: ['Product', 'weekly'],
          duration_seconds: 95,
          created_at: '2026-01-05T09:30:00Z',
        });
        await addNoteParts(h, note, { accountId: t.accountId, mode: 'live' });
        const [item] = (await listNotes(h, t.liveKey)).data;
        for (const key of LIST_KEYS) expect(item).toHaveProperty(key);
        expect(
          Object.keys(item!).filter((k) => !LIST_KEYS.includes(k) && !OPTIONAL_LIST_KEYS.includes(k)),
        ).toEqual([]);
        expect(item).toMatchObject({
          id: note.id,
          title: 'Planning',
          summary: expect.any(String),
          created_at: '2026-01-05T09:30:00.000Z',
          duration_seconds: 95,
          tags: ['Product', 'weekly'],
          highlights: 1,
        });
        expect(item).not.toHaveProperty('recording_id');
      });

      it('from/to: a bare date is the whole UTC day, a date-time is inclusive on both ends', async () => {
        const t = await h.tenant();
        const at = async (created_at: string) => (await createNote(h, t.liveKey, { created_at })).id;
        const dayBefore = await at('2026-01-04T23:59:59.999Z');
        const startOfDay = await at('2026-01-05T00:00:00.000Z');
        const endOfDay = await at('2026-01-05T23:59:59.999Z');
        const nextDay = await at('2026-01-06T00:00:00.000Z');
        const ids = async (q: Record<string, string>) =>
          (await listNotes(h, t.liveKey, q)).data.map((n) => n.id).sort();
        const sorted = (...xs: string[]) => xs.sort();

        expect(await ids({ from: '2026-01-05' })).toEqual(sorted(startOfDay, endOfDay, nextDay));
        expect(await ids({ to: '2026-01-05' })).toEqual(sorted(dayBefore, startOfDay, endOfDay));
        expect(await ids({ from: '2026-01-05', to: '2026-01-05' })).toEqual(sorted(startOfDay, endOfDay));
        expect(await ids({ to: '2026-01-05T00:00:00Z' })).toEqual(sorted(dayBefore, startOfDay));
        expect(await ids({ from: '2026-01-05T23:59:59.999Z' })).toEqual(sorted(endOfDay, nextDay));
        expect(await ids({ from: '2026-01-05T01:00:00+01:00', to: '2026-01-06T00:59:59.999+01:00' })).toEqual(
          sorted(startOfDay, endOfDay),
        );
        expect(await ids({ from: '2026-01-06', to: '2026-01-04' })).toEqual([]);
        const page = await listNotes(h, t.liveKey, { from: '2026-01-05', per_page: 1 });
        expect(page.meta.total).toBe(3);
      });

      it('from/to accept the far past and far future', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey, { created_at: '2026-01-05T00:00:00Z' });
        for (const [from, to] of [
          ['0100-01-01', '9999-12-31'],
          ['0001-01-01', '9999-12-31T23:59:59.999Z'],
          ['1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z'],
        ]) {
          const res = await listNotes(h, t.liveKey, { from: from!, to: to! });
          expect(
            res.data.map((n) => n.id),
            `${from}..${to}`,
          ).toEqual([note.id]);
        }
        expect(
          (await listNotes(h, t.liveKey, { to: '9999-12-31T23:59:59.999Z' })).data.map((n) => n.id),
        ).toEqual([note.id]);
      });

      it('tag filters by exact tag, case-insensitively', async () => {
        const t = await h.tenant();
        const product = await createNote(h, t.liveKey, { tags: ['Product', 'weekly'] });
        const products = await createNote(h, t.liveKey, { tags: ['products'] });
        await createNote(h, t.liveKey, { tags: [] });
        for (const tag of ['product', 'PRODUCT', 'Product', ' product ']) {
          const res = await listNotes(h, t.liveKey, { tag });
          expect(res.data.map((n) => n.id)).toEqual([product.id]);
          expect(res.meta.total).toBe(1);
        }
        expect((await listNotes(h, t.liveKey, { tag: 'Products' })).data.map((n) => n.id)).toEqual([
          products.id,
        ]);
        expect((await listNotes(h, t.liveKey, { tag: 'prod' })).data).toEqual([]);
      });

      it('tag filter follows tags changed by PATCH', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey, { tags: ['old'] });
        await h.request('PATCH', `/v1/notes/${note.id}`, { key: t.liveKey, body: { tags: ['New'] } });
        expect((await listNotes(h, t.liveKey, { tag: 'old' })).data).toEqual([]);
        expect((await listNotes(h, t.liveKey, { tag: 'new' })).data.map((n) => n.id)).toEqual([note.id]);
      });

      it('q finds a word of the transcript and a word of the title, and nothing else', async () => {
        const t = await h.tenant();
        const budget = await createNote(h, t.liveKey, {
          title: 'Weekly sync',
          transcript: 'Alice: The quarterly budget was exceeded again.\nBob: We need a spending freeze.',
        });
        const roadmap = await createNote(h, t.liveKey, {
          title: 'Roadmap kickoff',
          transcript: 'Carol: Let us talk about the mobile launch.',
        });
        const ids = async (q: string) => (await listNotes(h, t.liveKey, { q })).data.map((n) => n.id);
        expect(await ids('budget')).toEqual([budget.id]);
        expect(await ids('freeze')).toEqual([budget.id]);
        expect(await ids('Roadmap')).toEqual([roadmap.id]);
        expect(await ids('mobile launch')).toEqual([roadmap.id]);
        expect(await ids('BUDGET')).toEqual([budget.id]);
        expect(await ids('xylophone')).toEqual([]);
        expect((await listNotes(h, t.liveKey, { q: 'budget' })).meta.total).toBe(1);
      });

      it('q combines with tag and from/to', async () => {
        const t = await h.tenant();
        const a = await createNote(h, t.liveKey, {
          transcript: 'Alice: budget talk',
          tags: ['finance'],
          created_at: '2026-01-05T10:00:00Z',
        });
        await createNote(h, t.liveKey, {
          transcript: 'Alice: budget talk',
          tags: ['other'],
          created_at: '2026-01-05T10:00:00Z',
        });
        await createNote(h, t.liveKey, {
          transcript: 'Alice: budget talk',
          tags: ['finance'],
          created_at: '2026-02-05T10:00:00Z',
        });
        const res = await listNotes(h, t.liveKey, { q: 'budget', tag: 'Finance', to: '2026-01-31' });
        expect(res.data.map((n) => n.id)).toEqual([a.id]);
        expect(res.meta.total).toBe(1);
      });

      it.each([['!!!'], ['"'], ['*'], ['(('], ['-'], ['&|!'], ['NEAR('], ['title:'], ["'"], ['   ']])(
        'q=%j (no words) answers 200 without error',
        async (q) => {
          const t = await h.tenant();
          await createNote(h, t.liveKey);
          const res = await listNotes(h, t.liveKey, { q });
          expect(Array.isArray(res.data)).toBe(true);
        },
      );

      it('ignores unknown query parameters', async () => {
        const t = await h.tenant();
        await createNote(h, t.liveKey);
        expect((await listNotes(h, t.liveKey, { sort: 'asc', foo: 'bar' })).meta.total).toBe(1);
      });
    });

    describe('GET /v1/notes/:id', () => {
      it('returns the note in detail form, transcript one `Label: text` line per turn', async () => {
        const t = await h.tenant();
        const created = await createNote(h, t.liveKey, {
          title: 'Design review',
          transcript: 'Alice: Welcome.\nBob: Thanks.\nAlice: Let us start.',
          tags: ['design'],
          created_at: '2026-01-05T09:00:00Z',
        });
        const res = await h.request<NoteDetail>('GET', `/v1/notes/${created.id}`, { key: t.liveKey });
        expect(res.status).toBe(200);
        const note = res.body;
        for (const key of DETAIL_KEYS) expect(note).toHaveProperty(key);
        expect(
          Object.keys(note).filter((k) => !DETAIL_KEYS.includes(k) && !OPTIONAL_DETAIL_KEYS.includes(k)),
        ).toEqual([]);
        expect(note).toMatchObject({
          id: created.id,
          title: 'Design review',
          transcript: 'Alice: Welcome.\nBob: Thanks.\nAlice: Let us start.',
          speakers: [
            { label: 'Alice', name: 'Alice' },
            { label: 'Bob', name: 'Bob' },
          ],
          tags: ['design'],
          created_at: '2026-01-05T09:00:00.000Z',
          action_items: [],
          highlights: [],
          status: 'processing',
        });
        expect(note).not.toHaveProperty('segments');
        expect(note).not.toHaveProperty('recording_id');
        expect(Number.isInteger(note.duration_seconds)).toBe(true);
        expect(res.body).toEqual(created);
      });

      it('embeds highlights and action items; absent assignee/due are omitted, not null', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey);
        const space = { accountId: t.accountId, mode: 'live' as const };
        const first = await addNoteParts(h, note, space);
        const second = await addNoteParts(h, note, space, { assignee: null, due: null, status: 'completed' });
        const res = await h.request<NoteDetail>('GET', `/v1/notes/${note.id}`, { key: t.liveKey });
        expect(res.body.highlights).toEqual(
          expect.arrayContaining([
            { id: first.highlightId, timestamp_ms: 1500, text: 'The budget review is due on Friday.' },
            { id: second.highlightId, timestamp_ms: 1500, text: 'The budget review is due on Friday.' },
          ]),
        );
        expect(res.body.action_items).toEqual(
          expect.arrayContaining([
            {
              id: first.actionItemId,
              text: 'Send the budget review',
              assignee: 'Bob',
              due: '2026-01-09',
              status: 'pending',
            },
            { id: second.actionItemId, text: 'Send the budget review', status: 'completed' },
          ]),
        );
      });

      it('?include=segments adds the timed segments', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey, {
          segments: [
            { speaker: 'Alice', start_ms: 0, end_ms: 2500, text: 'Welcome.' },
            { speaker: 'Bob', start_ms: 2600, end_ms: 4000, text: 'Thanks.' },
          ],
        });
        const res = await h.request<NoteDetail>('GET', `/v1/notes/${note.id}?include=segments`, {
          key: t.liveKey,
        });
        expect(res.status).toBe(200);
        expect(res.body.segments).toEqual([
          { speaker: 'Alice', start_ms: 0, end_ms: 2500, text: 'Welcome.' },
          { speaker: 'Bob', start_ms: 2600, end_ms: 4000, text: 'Thanks.' },
        ]);
      });
    });

    describe('POST /v1/notes', () => {
      it('creates a note from `Label: text` lines: 202, status processing, speakers parsed', async () => {
        const t = await h.tenant();
        const before = Date.now();
        const res = await h.request<NoteDetail>('POST', '/v1/notes', {
          key: t.liveKey,
          body: {
            transcript:
              'Alice: Welcome to the weekly sync.\nBob: The budget review is due Friday.\n' +
              'It needs two more approvals.\nAlice: Thanks Bob.\nAlice: Next topic.',
          },
        });
        expect(res.status).toBe(202);
        const note = res.body;
        expect(note.id).toMatch(NOTE_ID);
        expect(note.status).toBe('processing');
        expect(note.transcript).toBe(
          'Alice: Welcome to the weekly sync.\n' +
            'Bob: The budget review is due Friday. It needs two more approvals.\n' +
            'Alice: Thanks Bob. Next topic.',
        );
        expect(note.speakers).toEqual([
          { label: 'Alice', name: 'Alice' },
          { label: 'Bob', name: 'Bob' },
        ]);
        expect(note.created_at).toMatch(ISO_UTC);
        expect(Date.parse(note.created_at)).toBeGreaterThanOrEqual(before - 1000);
        expect(Date.parse(note.created_at)).toBeLessThanOrEqual(Date.now() + 1000);
        expect(note.title.length).toBeGreaterThan(0);
        expect(note.tags).toEqual([]);
        expect(note).not.toHaveProperty('recording_id');
        const got = await h.request('GET', `/v1/notes/${note.id}`, { key: t.liveKey });
        expect(got.body).toEqual(note);
        expect((await listNotes(h, t.liveKey)).data.map((n) => n.id)).toEqual([note.id]);
      });

      it('creates a note from WebVTT with <v> voices and keeps cue timings', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey, {
          transcript:
            'WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.000\n<v Alice>Hello there.</v>\n\n' +
            '00:00:05.500 --> 00:00:08.000\n<v Bob>Hi Alice, <b>good</b> to see you.\n\n' +
            '01:00:00.000 --> 01:00:02.000\n<v.loud Alice>Wrapping up.\n',
        });
        expect(note.transcript).toBe(
          'Alice: Hello there.\nBob: Hi Alice, good to see you.\nAlice: Wrapping up.',
        );
        expect(note.speakers.map((s) => s.label)).toEqual(['Alice', 'Bob']);
        const res = await h.request<NoteDetail>('GET', `/v1/notes/${note.id}?include=segments`, {
          key: t.liveKey,
        });
        expect(res.body.segments).toEqual([
          { speaker: 'Alice', start_ms: 1000, end_ms: 4000, text: 'Hello there.' },
          { speaker: 'Bob', start_ms: 5500, end_ms: 8000, text: 'Hi Alice, good to see you.' },
          { speaker: 'Alice', start_ms: 3_600_000, end_ms: 3_602_000, text: 'Wrapping up.' },
        ]);
        expect(note.duration_seconds).toBe(3602);
      });

      it('creates a note from SRT with `Name:` speakers', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey, {
          transcript:
            '1\r\n00:00:01,000 --> 00:00:04,250\r\nAlice: Hello there.\r\n\r\n' +
            '2\r\n00:00:10,000 --> 00:00:12,000\r\nBob: Hi Alice.\r\n',
        });
        expect(note.transcript).toBe('Alice: Hello there.\nBob: Hi Alice.');
        const res = await h.request<NoteDetail>('GET', `/v1/notes/${note.id}?include=segments`, {
          key: t.liveKey,
        });
        expect(res.body.segments).toEqual([
          { speaker: 'Alice', start_ms: 1000, end_ms: 4250, text: 'Hello there.' },
          { speaker: 'Bob', start_ms: 10_000, end_ms: 12_000, text: 'Hi Alice.' },
        ]);
      });

      it('creates a note from segments; duration defaults to the last end', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey, {
          segments: [
            { speaker: 'SPEAKER_00', start_ms: 0, end_ms: 1200, text: 'Good morning.' },
            { speaker: 'SPEAKER_01', start_ms: 1300, end_ms: 61_001, text: '  Morning!  ' },
          ],
        });
        expect(note.transcript).toBe('SPEAKER_00: Good morning.\nSPEAKER_01: Morning!');
        expect(note.duration_seconds).toBe(62);
        expect(note.speakers.map((s) => s.label)).toEqual(['SPEAKER_00', 'SPEAKER_01']);
      });

      it('applies `speakers` names to the labels they name', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey, {
          segments: [
            { speaker: 'SPEAKER_00', start_ms: 0, end_ms: 1000, text: 'Hello.' },
            { speaker: 'SPEAKER_01', start_ms: 1000, end_ms: 2000, text: 'Hi.' },
            { speaker: 'SPEAKER_02', start_ms: 2000, end_ms: 3000, text: 'Hey.' },
          ],
          speakers: [
            { label: 'SPEAKER_01', name: 'Bob Builder' },
            { label: 'SPEAKER_00', name: 'Alice Smith' },
            { label: 'NOBODY', name: 'Ghost' },
          ],
        });
        expect(note.speakers).toEqual([
          { label: 'SPEAKER_00', name: 'Alice Smith' },
          { label: 'SPEAKER_01', name: 'Bob Builder' },
          { label: 'SPEAKER_02', name: 'SPEAKER_02' },
        ]);
        expect(note.transcript).toBe('SPEAKER_00: Hello.\nSPEAKER_01: Hi.\nSPEAKER_02: Hey.');
      });

      it('recognises diarization labels (SPEAKER_00 …) in `Label: text` lines, even when each speaks once', async () => {
        const t = await h.tenant();
        const transcript = 'SPEAKER_00: Hello.\nSPEAKER_01: Hi.\nSPEAKER_02: Hey.';
        const note = await createNote(h, t.liveKey, { transcript });
        expect(note.speakers.map((s) => s.label)).toEqual(['SPEAKER_00', 'SPEAKER_01', 'SPEAKER_02']);
        expect(note.transcript).toBe(transcript);
      });

      it('honours created_at (normalised to UTC), duration_seconds, title and tags', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey, {
          created_at: '2026-01-05T10:00:00+02:00',
          duration_seconds: 1800,
          title: '  Quarterly planning  ',
          tags: [' Finance ', 'finance', 'Q1', 'FINANCE'],
        });
        expect(note).toMatchObject({
          created_at: '2026-01-05T08:00:00.000Z',
          duration_seconds: 1800,
          title: 'Quarterly planning',
          tags: ['Finance', 'Q1'],
        });
      });

      it('accepts 2 MB of transcript (the limit)', async () => {
        const t = await h.tenant();
        const line = 'Alice: the budget review is on track and nothing else is new today.\n';
        const transcript = line.repeat(Math.floor((2 * 1024 * 1024) / line.length));
        expect(Buffer.byteLength(transcript)).toBeLessThanOrEqual(2 * 1024 * 1024);
        const note = await createNote(h, t.liveKey, { transcript });
        expect(note.speakers).toEqual([{ label: 'Alice', name: 'Alice' }]);
      });
    });

    describe('PATCH /v1/notes/:id', () => {
      it('sets the title (trimmed) and answers {id, title, tags}', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey, { tags: ['keep'] });
        const res = await h.request('PATCH', `/v1/notes/${note.id}`, {
          key: t.liveKey,
          body: { title: '  New title  ' },
        });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ id: note.id, title: 'New title', tags: ['keep'] });
        const got = await h.request<NoteDetail>('GET', `/v1/notes/${note.id}`, { key: t.liveKey });
        expect(got.body.title).toBe('New title');
        expect(got.body.tags).toEqual(['keep']);
        expect((await listNotes(h, t.liveKey)).data[0]!.title).toBe('New title');
      });

      it('accepts titles of 1 and 200 code points; an emoji counts as one', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey);
        for (const title of [
          'x',
          'a'.repeat(200),
          '😀'.repeat(200),
          '𝕳'.repeat(200),
          'Ünïcödé ✓ 日本語 مرحبا',
        ]) {
          const res = await h.request('PATCH', `/v1/notes/${note.id}`, { key: t.liveKey, body: { title } });
          expect(res.status, res.text).toBe(200);
          expect(res.body.title).toBe(title);
        }
      });

      it('sets tags: trimmed, duplicates removed case-insensitively keeping the first spelling', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey, { title: 'Keep me' });
        const res = await h.request('PATCH', `/v1/notes/${note.id}`, {
          key: t.liveKey,
          body: { tags: ['Product', ' product ', 'PRODUCT', 'Weekly', 'weekly', '日本', '😀'] },
        });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          id: note.id,
          title: 'Keep me',
          tags: ['Product', 'Weekly', '日本', '😀'],
        });
        const got = await h.request<NoteDetail>('GET', `/v1/notes/${note.id}`, { key: t.liveKey });
        expect(got.body.tags).toEqual(['Product', 'Weekly', '日本', '😀']);

        // The limit of 25 counts tags after duplicates are removed, however many copies were sent.
        const copies = await h.request('PATCH', `/v1/notes/${note.id}`, {
          key: t.liveKey,
          body: { tags: [...Array.from({ length: 150 }, (_, i) => (i % 2 ? 'a' : 'A')), 'b'] },
        });
        expect(copies.status, copies.text).toBe(200);
        expect(copies.body.tags).toEqual(['A', 'b']);
      });

      it('accepts 25 tags of up to 50 code points, and [] clears the tags', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey, { tags: ['old'] });
        const tags = Array.from({ length: 25 }, (_, i) => `${String(i).padStart(2, '0')}${'t'.repeat(48)}`);
        const res = await h.request('PATCH', `/v1/notes/${note.id}`, { key: t.liveKey, body: { tags } });
        expect(res.status, res.text).toBe(200);
        expect(res.body.tags).toEqual(tags);
        const emoji = await h.request('PATCH', `/v1/notes/${note.id}`, {
          key: t.liveKey,
          body: { tags: ['😀'.repeat(50)] },
        });
        expect(emoji.status, emoji.text).toBe(200);
        const cleared = await h.request('PATCH', `/v1/notes/${note.id}`, {
          key: t.liveKey,
          body: { tags: [] },
        });
        expect(cleared.body.tags).toEqual([]);
        expect((await listNotes(h, t.liveKey, { tag: 'old' })).data).toEqual([]);
      });

      it('sets title and tags together', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey);
        const res = await h.request('PATCH', `/v1/notes/${note.id}`, {
          key: t.liveKey,
          body: { title: 'Both', tags: ['a', 'b'] },
        });
        expect(res.body).toEqual({ id: note.id, title: 'Both', tags: ['a', 'b'] });
      });
    });

    describe('DELETE /v1/notes/:id', () => {
      it('answers {deleted: true}; afterwards GET, PATCH and a second DELETE are 404', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey);
        const res = await h.request('DELETE', `/v1/notes/${note.id}`, { key: t.liveKey });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ deleted: true });
        for (const [method, body] of [['GET'], ['PATCH', { title: 'x' }], ['DELETE']] as const) {
          const again = await h.request(method, `/v1/notes/${note.id}`, { key: t.liveKey, body });
          expect(again.status).toBe(404);
          expect(again.body.error.code).toBe('resource_not_found');
        }
        expect((await listNotes(h, t.liveKey)).meta.total).toBe(0);
      });

      it('removes its recording row, segments, speakers, highlights, action items and tags', async () => {
        const t = await h.tenant();
        const note = await createNote(h, t.liveKey, {
          transcript: 'Alice: The zebra budget.\nBob: Agreed.',
          tags: ['gone', 'Also'],
        });
        const other = await createNote(h, t.liveKey, { tags: ['gone'] });
        await addNoteParts(h, note, { accountId: t.accountId, mode: 'live' });
        await addNoteParts(h, other, { accountId: t.accountId, mode: 'live' });
        await h.db.db
          .insertInto('recordings')
          .values({
            id: newId('recording'),
            account_id: t.accountId,
            mode: 'live',
            note_id: note.id,
            content_type: 'text/plain',
            size_bytes: 38,
            duration_seconds: 2,
            storage_key: null,
            created_at: new Date().toISOString(),
          })
          .execute();
        expect(await countOwnedRows(h, note.id)).toEqual({
          notes: 1,
          recordings: 1,
          segments: 2,
          speakers: 2,
          highlights: 1,
          action_items: 1,
          note_tags: 2,
        });
        await h.request('DELETE', `/v1/notes/${note.id}`, { key: t.liveKey });
        expect(await countOwnedRows(h, note.id)).toEqual({
          notes: 0,
          recordings: 0,
          segments: 0,
          speakers: 0,
          highlights: 0,
          action_items: 0,
          note_tags: 0,
        });
        // The other note keeps its parts, and keyword search no longer finds the deleted one.
        expect((await countOwnedRows(h, other.id)).action_items).toBe(1);
        expect((await listNotes(h, t.liveKey, { q: 'zebra' })).data).toEqual([]);
        expect((await listNotes(h, t.liveKey, { tag: 'gone' })).data.map((n) => n.id)).toEqual([other.id]);
      });
    });
  });
}
