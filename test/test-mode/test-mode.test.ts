import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Db, Mode } from '../../src/db/schema.ts';
import { createDeps } from '../../src/deps.ts';
import { buildSeedDataset } from '../../src/features/test-mode/seed.dataset.ts';
import { ensureSeeded } from '../../src/features/test-mode/seed.service.ts';
import type { ActionItemView } from '../action-items/factories.ts';
import { collectOutput } from '../cli/cli-process.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';

const DAY = 86_400_000;
/** The size of the mock data set: every seeded space holds exactly this many notes. */
const SEED_NOTES = buildSeedDataset(Date.now()).length;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');

interface NoteListItem {
  id: string;
  title: string;
  summary: string;
  created_at: string;
  tags: string[];
  highlights?: number;
}
interface NoteDetail {
  id: string;
  title: string;
  tags: string[];
  transcript: string;
  status: string;
  duration_seconds: number;
  speakers: { label: string; name: string }[];
  highlights: { id: string; timestamp_ms: number; text: string }[];
  action_items: { id: string; text: string; status: string }[];
  segments: { speaker: string; start_ms: number; end_ms: number; text: string }[];
}

async function allNotes(h: Harness, key: string): Promise<{ data: NoteListItem[]; total: number }> {
  const res = await h.request('GET', '/v1/notes?per_page=100', { key });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return { data: res.body.data, total: res.body.meta.total };
}

async function allItems(
  h: Harness,
  key: string,
  status = 'all',
): Promise<{ data: ActionItemView[]; total: number }> {
  const res = await h.request('GET', `/v1/action-items?per_page=100&status=${status}`, { key });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return { data: res.body.data, total: res.body.meta.total };
}

async function detail(h: Harness, key: string, id: string): Promise<NoteDetail> {
  const res = await h.request('GET', `/v1/notes/${id}?include=segments`, { key });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return res.body;
}

/** Rows of an account's data space in every table the seed writes (and the outbox and job queue). */
async function countRows(db: Db, accountId: string, mode: Mode) {
  const count = async (
    table:
      | 'notes'
      | 'segments'
      | 'speakers'
      | 'note_tags'
      | 'highlights'
      | 'action_items'
      | 'events'
      | 'jobs',
  ) =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', accountId)
          .where('mode', '=', mode)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    notes: await count('notes'),
    segments: await count('segments'),
    speakers: await count('speakers'),
    note_tags: await count('note_tags'),
    highlights: await count('highlights'),
    action_items: await count('action_items'),
    events: await count('events'),
    jobs: await count('jobs'),
  };
}

const markers = (db: Db, accountId: string) =>
  db.selectFrom('data_spaces').selectAll().where('account_id', '=', accountId).execute();

/** Starts several processes that seed the same account at the same moment (a stdin barrier). */
async function seedFromProcesses(h: Harness, accountId: string, count: number): Promise<void> {
  const children = Array.from({ length: count }, () =>
    spawn(
      process.execPath,
      ['--import', 'tsx', path.join(HERE, 'seed-child.ts'), JSON.stringify(h.db.database), accountId],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
    ),
  );
  const outputs = children.map((child) => {
    const { stdout, stderr } = collectOutput(child);
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (stdout().includes('ready')) {
          clearInterval(timer);
          resolve();
        }
      }, 10);
      child.on('exit', () => {
        clearInterval(timer);
        reject(new Error(`seed child exited before it was ready: ${stderr()}`));
      });
    });
    const exited = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
      child.on('close', (code) => resolve({ code, out: stdout(), err: stderr() })),
    );
    return { child, ready, exited };
  });
  await Promise.all(outputs.map((o) => o.ready));
  for (const { child } of outputs) child.stdin.write('go\n');
  for (const result of await Promise.all(outputs.map((o) => o.exited))) {
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain('done');
  }
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect);

    it('seeds the test space on first use: ≥ 20 ready notes spread over the last 60 days', async () => {
      const t = await h.tenant();
      const before = Date.now();
      const { data, total } = await allNotes(h, t.testKey);

      expect(SEED_NOTES).toBeGreaterThanOrEqual(20);
      expect(total).toBe(SEED_NOTES);
      expect(data).toHaveLength(total);
      const ages = data.map((n) => (before - Date.parse(n.created_at)) / DAY);
      expect(Math.min(...ages)).toBeGreaterThan(0);
      expect(Math.max(...ages)).toBeLessThanOrEqual(60);
      expect(Math.max(...ages) - Math.min(...ages)).toBeGreaterThan(50);
      for (const note of data) {
        expect(note.title.length).toBeGreaterThan(0);
        expect(note.summary.length).toBeGreaterThan(40);
        expect(note.tags.length).toBeGreaterThan(0);
        expect(note.highlights).toBeGreaterThan(0);
        expect(note).not.toHaveProperty('recording_id');
      }
    });

    it('gives every seeded note a multi-speaker transcript matching its segments, speakers and highlights', async () => {
      const t = await h.tenant();
      const { data } = await allNotes(h, t.testKey);
      const transcripts: string[] = [];
      for (const item of data) {
        const note = await detail(h, t.testKey, item.id);
        expect(note.status).toBe('ready');
        expect(note.speakers.length).toBeGreaterThanOrEqual(3);
        expect(note.speakers.length).toBeLessThanOrEqual(4);
        for (const s of note.speakers) expect(s.name).toMatch(/^\S+ \S+/);
        expect(note.segments.length).toBeGreaterThanOrEqual(8);
        expect(note.segments.length).toBeLessThanOrEqual(20);
        expect(note.transcript).toBe(note.segments.map((s) => `${s.speaker}: ${s.text}`).join('\n'));
        const labels = new Set(note.speakers.map((s) => s.label));
        for (const s of note.segments) {
          expect(labels.has(s.speaker)).toBe(true);
          expect(s.end_ms).toBeGreaterThan(s.start_ms);
        }
        expect(note.duration_seconds * 1000).toBeGreaterThanOrEqual(note.segments.at(-1)!.end_ms);
        expect(note.highlights.length).toBeGreaterThan(0);
        for (const hl of note.highlights) {
          expect(hl.id).toMatch(/^hl_[0-9A-Za-z]{24}$/);
          expect(note.segments.some((s) => s.start_ms === hl.timestamp_ms && s.text === hl.text)).toBe(true);
        }
        expect(note.action_items.length).toBeGreaterThan(0);
        transcripts.push(note.transcript);
      }
      expect(transcripts.some((tr) => tr.includes('the budget was exceeded'))).toBe(true);
    });

    it('has action items in both states, with assignees and due dates', async () => {
      const t = await h.tenant();
      const all = await allItems(h, t.testKey);
      const completed = await allItems(h, t.testKey, 'completed');
      const pending = await allItems(h, t.testKey, 'pending');

      expect(completed.total).toBeGreaterThan(0);
      expect(pending.total).toBeGreaterThan(0);
      expect(completed.total + pending.total).toBe(all.total);
      for (const item of completed.data) {
        expect(Date.parse(item.completed_at!)).toBeGreaterThanOrEqual(Date.parse(item.created_at));
        expect(Date.parse(item.completed_at!)).toBeLessThanOrEqual(Date.now());
      }
      for (const item of pending.data) expect(item).not.toHaveProperty('completed_at');
      expect(all.data.some((i) => i.assignee && i.due)).toBe(true);
      expect(all.data.some((i) => i.assignee === undefined)).toBe(true);
      expect(all.data.every((i) => /^ai_[0-9A-Za-z]{24}$/.test(i.id))).toBe(true);

      const someone = all.data.find((i) => i.assignee)!.assignee!;
      const theirs = await h.request(
        'GET',
        `/v1/action-items?assignee=${encodeURIComponent(someone.toUpperCase())}`,
        {
          key: t.testKey,
        },
      );
      expect(theirs.body.meta.total).toBeGreaterThan(0);
      expect(theirs.body.data.every((i: ActionItemView) => i.assignee === someone)).toBe(true);
    });

    it('has several tags, stored for case-insensitive filtering', async () => {
      const t = await h.tenant();
      const { data } = await allNotes(h, t.testKey);
      const tags = new Set(data.flatMap((n) => n.tags));
      expect(tags.size).toBeGreaterThanOrEqual(5);
      const tag = data[0]!.tags[0]!;
      const res = await h.request(
        'GET',
        `/v1/notes?per_page=100&tag=${encodeURIComponent(tag.toUpperCase())}`,
        {
          key: t.testKey,
        },
      );
      expect(res.body.meta.total).toBe(data.filter((n) => n.tags.includes(tag)).length);
    });

    it('is deterministic: two accounts get the same titles, transcripts and items (with their own ids)', async () => {
      const a = await h.tenant();
      const b = await h.tenant();
      const notesA = (await allNotes(h, a.testKey)).data;
      const notesB = (await allNotes(h, b.testKey)).data;

      expect(notesB.map((n) => n.title)).toEqual(notesA.map((n) => n.title));
      expect(notesB.map((n) => n.tags)).toEqual(notesA.map((n) => n.tags));
      const idsA = new Set(notesA.map((n) => n.id));
      expect(notesB.some((n) => idsA.has(n.id))).toBe(false);
      for (const i of [0, notesA.length - 1]) {
        const [da, db] = [
          await detail(h, a.testKey, notesA[i]!.id),
          await detail(h, b.testKey, notesB[i]!.id),
        ];
        expect(db.transcript).toBe(da.transcript);
        expect(db.speakers).toEqual(da.speakers);
        expect(db.action_items.map((x) => x.text)).toEqual(da.action_items.map((x) => x.text));
      }
    });

    it('never touches the live space and writes no events or jobs', async () => {
      const t = await h.tenant();
      await allNotes(h, t.testKey);

      expect((await allNotes(h, t.liveKey)).total).toBe(0);
      expect((await allItems(h, t.liveKey)).total).toBe(0);
      expect(await countRows(h.db.db, t.accountId, 'live')).toEqual({
        notes: 0,
        segments: 0,
        speakers: 0,
        note_tags: 0,
        highlights: 0,
        action_items: 0,
        events: 0,
        jobs: 0,
      });
      const test = await countRows(h.db.db, t.accountId, 'test');
      expect(test.notes).toBeGreaterThanOrEqual(20);
      expect(test.segments).toBeGreaterThanOrEqual(8 * test.notes);
      expect(test.speakers).toBeGreaterThanOrEqual(3 * test.notes);
      expect([test.events, test.jobs]).toEqual([0, 0]);
      expect((await markers(h.db.db, t.accountId)).map((m) => m.mode)).toEqual(['test']);
    });

    it('a live key never seeds anything', async () => {
      const t = await h.tenant();
      await allNotes(h, t.liveKey);
      await allItems(h, t.liveKey);
      expect(await markers(h.db.db, t.accountId)).toEqual([]);
      expect((await countRows(h.db.db, t.accountId, 'test')).notes).toBe(0);
    });

    it('seeds once: concurrent first requests of one process produce one data set', async () => {
      const t = await h.tenant();
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          h.request('GET', i % 2 ? '/v1/notes' : '/v1/action-items', { key: t.testKey }),
        ),
      );
      for (const res of responses) expect(res.status).toBe(200);
      expect(responses.filter((_, i) => i % 2).every((r) => r.body.meta.total === SEED_NOTES)).toBe(true);
      expect((await countRows(h.db.db, t.accountId, 'test')).notes).toBe(SEED_NOTES);
      expect(await markers(h.db.db, t.accountId)).toHaveLength(1);
    });

    it('seeds once: processes racing on the same account with no shared cache produce one data set', async () => {
      const t = await h.tenant();
      await seedFromProcesses(h, t.accountId, 4);

      const rows = await countRows(h.db.db, t.accountId, 'test');
      expect(rows.notes).toBe(SEED_NOTES);
      expect(await markers(h.db.db, t.accountId)).toHaveLength(1);
      // The API (which never saw this account) serves exactly that one data set.
      expect((await allNotes(h, t.testKey)).total).toBe(rows.notes);
      expect(await countRows(h.db.db, t.accountId, 'test')).toEqual(rows);
    }, 60_000);

    it('does not seed again once seeded, even after the data was changed (a process with an empty cache)', async () => {
      const t = await h.tenant();
      const { data, total } = await allNotes(h, t.testKey);
      expect(total).toBe(SEED_NOTES);
      const res = await h.request('DELETE', `/v1/notes/${data[0]!.id}`, { key: t.testKey });
      expect(res.status).toBe(200);

      const other = createDeps(h.deps.config, { poolSize: 1, logger: h.deps.logger });
      try {
        await ensureSeeded(other, t.accountId);
      } finally {
        await other.close();
      }
      expect((await countRows(h.db.db, t.accountId, 'test')).notes).toBe(total - 1);
      expect((await allNotes(h, t.testKey)).total).toBe(total - 1);
    });

    it('writes with a test key change test data only; live keys cannot see seeded items', async () => {
      const t = await h.tenant();
      const pending = (await allItems(h, t.testKey, 'pending')).data[0]!;

      const done = await h.request('PATCH', `/v1/action-items/${pending.id}`, {
        key: t.testKey,
        body: { status: 'completed' },
      });
      expect(done.status).toBe(200);
      expect(done.body.status).toBe('completed');
      const fromLive = await h.request('PATCH', `/v1/action-items/${pending.id}`, {
        key: t.liveKey,
        body: { status: 'pending' },
      });
      expectApiError(fromLive, 404, 'resource_not_found');
      const note = await h.request('GET', `/v1/notes/${pending.note_id}`, { key: t.liveKey });
      expectApiError(note, 404, 'resource_not_found');
    });

    it('a restricted test key seeds too, and its scopes still apply', async () => {
      const t = await h.tenant();
      const reader = await t.keyWithScopes(['actions:read'], 'test');
      const denied = await h.request('GET', '/v1/notes', { key: reader });
      expectApiError(denied, 403, 'insufficient_scope');
      expect((await allItems(h, reader)).total).toBeGreaterThan(0);
    });
  });
}
