import { beforeEach, describe, expect, it } from 'vitest';
import type { Mode } from '../../src/db/schema.ts';
import { enqueueProcessing, PROCESS_NOTE_JOB } from '../../src/features/processing/process-note.job.ts';
import { enqueueJob } from '../../src/jobs/queue.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, useHarness } from '../helpers/harness.ts';

const MAX_ATTEMPTS = 3;

/** Recorded on Monday 23 November 2026: "by Friday" is the 27th. */
const CREATED_AT = '2026-11-23T09:00:00.000Z';

const TRANSCRIPT = [
  'S1: Welcome everyone, this is the launch planning meeting.',
  'S1: We need to finalize the launch budget for the March release.',
  'S2: The launch budget is already over plan because the trade show cost more than expected.',
  'S3: Moving the launch event online would cut the event budget in half.',
  'S2: Key point: the online launch event also reaches customers in other regions.',
  "S2: I'll send the revised budget spreadsheet to finance by Friday.",
  'S1: Maria, can you book the review room by the 15th?',
  'S3: Sure.',
].join('\n');

const SPEAKERS = [
  { label: 'S1', name: 'Alice Chen' },
  { label: 'S2', name: 'Bob Smith' },
  { label: 'S3', name: 'Maria Lopez' },
];

async function postNote(h: Harness, key: string, body: Record<string, unknown> = {}) {
  const res = await h.request('POST', '/v1/notes', {
    key,
    body: { transcript: TRANSCRIPT, speakers: SPEAKERS, created_at: CREATED_AT, ...body },
  });
  expect(res.status).toBe(202);
  expect(res.body.status).toBe('processing');
  return res.body as { id: string; title: string };
}

async function getNote(h: Harness, key: string, id: string) {
  const res = await h.request('GET', `/v1/notes/${id}`, { key });
  expect(res.status).toBe(200);
  return res.body;
}

async function eventsOf(h: Harness, accountId: string, mode: Mode = 'live') {
  const rows = await h.db.db
    .selectFrom('events')
    .select(['type', 'payload', 'seq'])
    .where('account_id', '=', accountId)
    .where('mode', '=', mode)
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({ type: r.type, ...(JSON.parse(r.payload) as { id: string; data: any }) }));
}

async function jobOf(h: Harness, noteId: string) {
  const jobs = await h.db.db.selectFrom('jobs').selectAll().where('type', '=', PROCESS_NOTE_JOB).execute();
  const job = jobs.find((j) => (JSON.parse(j.payload) as { note_id: string }).note_id === noteId);
  if (!job) throw new Error(`no job for ${noteId}`);
  return job;
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    // Retries without waiting, so a failing note goes through every attempt in one runDueJobs.
    const h = useHarness(dialect, { JOB_RETRY_BASE_SECONDS: '0', JOB_MAX_ATTEMPTS: String(MAX_ATTEMPTS) });

    beforeEach(async () => {
      await h.db.db.deleteFrom('jobs').execute();
    });

    it('turns a posted transcript into a ready note with summary, title, action items and highlights', async () => {
      const t = await h.tenant();
      const created = await postNote(h, t.liveKey);
      expect(await runDueJobs(h.deps)).toBe(1);

      const note = await getNote(h, t.liveKey, created.id);
      expect(note.status).toBe('ready');
      expect(note.failure_reason).toBeUndefined();
      expect(note.summary).toMatch(/budget/);
      expect(note.title).not.toBe(created.title);
      expect(note.title.length).toBeLessThanOrEqual(80);
      expect(note.action_items).toEqual([
        {
          id: expect.stringMatching(/^ai_[0-9A-Za-z]{24}$/),
          text: 'Finalize the launch budget for the March release',
          status: 'pending',
        },
        {
          id: expect.stringMatching(/^ai_[0-9A-Za-z]{24}$/),
          text: 'Send the revised budget spreadsheet to finance by Friday',
          assignee: 'Bob Smith',
          due: '2026-11-27',
          status: 'pending',
        },
        {
          id: expect.stringMatching(/^ai_[0-9A-Za-z]{24}$/),
          text: 'Book the review room by the 15th',
          assignee: 'Maria Lopez',
          due: '2026-12-15',
          status: 'pending',
        },
      ]);
      expect(note.highlights).toContainEqual({
        id: expect.stringMatching(/^hl_[0-9A-Za-z]{24}$/),
        timestamp_ms: expect.any(Number),
        text: 'Key point: the online launch event also reaches customers in other regions.',
      });
      const segments = (await getNote(h, t.liveKey, `${created.id}?include=segments`)).segments as {
        start_ms: number;
      }[];
      for (const highlight of note.highlights) {
        expect(segments.map((s) => s.start_ms)).toContain(highlight.timestamp_ms);
      }
      expect(await jobOf(h, created.id)).toMatchObject({ status: 'done', attempts: 1 });
    });

    it('writes note.created, one action_item.created per item, then note.processed, matching the API', async () => {
      const t = await h.tenant();
      const created = await postNote(h, t.liveKey);
      await runDueJobs(h.deps);
      const note = await getNote(h, t.liveKey, created.id);
      const events = await eventsOf(h, t.accountId);

      expect(events.map((e) => e.type)).toEqual([
        'note.created',
        'action_item.created',
        'action_item.created',
        'action_item.created',
        'note.processed',
      ]);
      expect(events[0]!.data.id).toBe(created.id);
      const items = await h.request('GET', `/v1/action-items?note_id=${created.id}`, { key: t.liveKey });
      const byId = new Map((items.body.data as { id: string }[]).map((i) => [i.id, i]));
      for (const [i, event] of events.slice(1, 4).entries()) {
        expect(event.data).toEqual(byId.get(note.action_items[i].id));
        expect(event.data).toMatchObject({ note_id: created.id, status: 'pending' });
      }
      expect(events[4]!.data).toEqual(note);
      expect(new Set(events.map((e) => e.id)).size).toBe(5);
    });

    it('keeps a title the user gave, at creation or while processing', async () => {
      const t = await h.tenant();
      const given = await postNote(h, t.liveKey, { title: 'Launch sync' });
      const renamed = await postNote(h, t.liveKey);
      const patch = await h.request('PATCH', `/v1/notes/${renamed.id}`, {
        key: t.liveKey,
        body: { title: 'Renamed' },
      });
      expect(patch.status).toBe(200);
      expect(await runDueJobs(h.deps)).toBe(2);

      expect((await getNote(h, t.liveKey, given.id)).title).toBe('Launch sync');
      const note = await getNote(h, t.liveKey, renamed.id);
      expect(note).toMatchObject({ title: 'Renamed', status: 'ready' });
      expect(note.summary).not.toBe('');
    });

    it('processes a test-mode note in the test data space only', async () => {
      const t = await h.tenant();
      const created = await postNote(h, t.testKey);
      await runDueJobs(h.deps);
      expect((await getNote(h, t.testKey, created.id)).status).toBe('ready');
      const live = await eventsOf(h, t.accountId, 'live');
      const test = (await eventsOf(h, t.accountId, 'test')).filter(
        (e) => e.data.id === created.id || e.data.note_id === created.id,
      );
      expect(live).toEqual([]);
      expect(test.map((e) => e.type)).toEqual([
        'note.created',
        'action_item.created',
        'action_item.created',
        'action_item.created',
        'note.processed',
      ]);
    });

    it('ends successfully, doing nothing, when the note was deleted before its job ran', async () => {
      const t = await h.tenant();
      const created = await postNote(h, t.liveKey);
      expect((await h.request('DELETE', `/v1/notes/${created.id}`, { key: t.liveKey })).status).toBe(200);
      expect(await runDueJobs(h.deps)).toBe(1);
      expect(await jobOf(h, created.id)).toMatchObject({ status: 'done', attempts: 1 });
      expect((await eventsOf(h, t.accountId)).map((e) => e.type)).toEqual(['note.created']);
      const orphans = await h.db.db
        .selectFrom('action_items')
        .select('id')
        .where('note_id', '=', created.id)
        .execute();
      expect(orphans).toEqual([]);
    });

    it('does nothing when a job for a ready note runs again (at-least-once delivery)', async () => {
      const t = await h.tenant();
      const created = await postNote(h, t.liveKey);
      await runDueJobs(h.deps);
      const before = await getNote(h, t.liveKey, created.id);
      const space = { accountId: t.accountId, mode: 'live' as const };
      await enqueueProcessing(h.db.db, space, created.id, MAX_ATTEMPTS);
      expect(await runDueJobs(h.deps)).toBe(1);
      expect(await getNote(h, t.liveKey, created.id)).toEqual(before);
      expect(await eventsOf(h, t.accountId)).toHaveLength(5);
    });

    it('replaces, not duplicates, the action items and highlights of an earlier run', async () => {
      const t = await h.tenant();
      const created = await postNote(h, t.liveKey);
      await runDueJobs(h.deps);
      const first = await getNote(h, t.liveKey, created.id);
      // As if the note were sent back for processing (a retry after a failure, or a re-analysis).
      await h.db.db.updateTable('notes').set({ status: 'processing' }).where('id', '=', created.id).execute();
      await enqueueProcessing(h.db.db, { accountId: t.accountId, mode: 'live' }, created.id, MAX_ATTEMPTS);
      await runDueJobs(h.deps);

      const second = await getNote(h, t.liveKey, created.id);
      expect(second.status).toBe('ready');
      expect(second.action_items.map((a: { text: string }) => a.text)).toEqual(
        first.action_items.map((a: { text: string }) => a.text),
      );
      expect(second.highlights).toHaveLength(first.highlights.length);
      const ids = second.action_items.map((a: { id: string }) => a.id);
      expect(ids).not.toContain(first.action_items[0].id);
      const count = await h.db.db
        .selectFrom('action_items')
        .select('id')
        .where('note_id', '=', created.id)
        .execute();
      expect(count).toHaveLength(first.action_items.length);
    });

    it('marks the note failed with a reason after the last attempt, never leaving it processing', async () => {
      const t = await h.tenant();
      const created = await postNote(h, t.liveKey);
      // A note whose transcript is gone cannot be analyzed, however often it is retried.
      await h.db.db.deleteFrom('segments').where('note_id', '=', created.id).execute();
      expect(await runDueJobs(h.deps)).toBe(MAX_ATTEMPTS);

      const note = await getNote(h, t.liveKey, created.id);
      expect(note.status).toBe('failed');
      expect(note.failure_reason).toBe('The note has no transcript to analyze.');
      expect(note.action_items).toEqual([]);
      const job = await jobOf(h, created.id);
      expect(job).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS });
      expect(job.last_error).toMatch(/no transcript/);
      // note.failed, written with the job's failure, once.
      const events = await eventsOf(h, t.accountId);
      expect(events.map((e) => e.type)).toEqual(['note.created', 'note.failed']);
      expect(events[1]!.data).toMatchObject({
        id: created.id,
        failure_reason: 'The note has no transcript to analyze.',
      });
    });

    it('fails the job without retrying when its payload names no note', async () => {
      const space = { accountId: 'acct_none', mode: 'live' as const };
      const id = await enqueueJob(h.db.db, { ...space, type: PROCESS_NOTE_JOB, payload: {}, maxAttempts: 3 });
      expect(await runDueJobs(h.deps)).toBe(1);
      const job = await h.db.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: 'failed', attempts: 1 });
      expect(job.last_error).toMatch(/note_id/);
    });
  });
}
