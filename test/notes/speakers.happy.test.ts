import { describe, expect, it } from 'vitest';
import { searchDb } from '../../src/features/search/search.tables.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, useHarness } from '../helpers/harness.ts';
import { createNote, type NoteDetail } from './notes.fixtures.ts';

const TRANSCRIPT = [
  'Speaker 1: Welcome to the planning meeting. The budget review is on the agenda.',
  "Speaker 2: I'll send the updated budget report to finance by Friday.",
  'Speaker 3: I will draft the hiring plan and share it with everyone tomorrow.',
  'Speaker 1: Great, thanks everyone.',
].join('\n');

async function processed(h: Harness, key: string, body: Record<string, unknown> = {}) {
  const note = await createNote(h, key, { transcript: TRANSCRIPT, ...body });
  await runDueJobs(h.deps);
  return getNote(h, key, note.id);
}

async function getNote(h: Harness, key: string, id: string): Promise<NoteDetail> {
  const res = await h.request<NoteDetail>('GET', `/v1/notes/${id}?include=segments`, { key });
  expect(res.status).toBe(200);
  return res.body;
}

async function patchSpeakers(h: Harness, key: string, id: string, body: unknown) {
  const res = await h.request('PATCH', `/v1/notes/${id}/speakers`, { key, body });
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  return res.body as { id: string; speakers: { label: string; name: string }[] };
}

async function indexedText(h: Harness, noteId: string) {
  const rows = await searchDb(h.deps.db)
    .selectFrom('search_chunks')
    .select('text')
    .where('note_id', '=', noteId)
    .execute();
  return rows.map((r) => r.text).join('\n');
}

for (const dialect of DIALECTS) {
  describe(`PATCH /v1/notes/:id/speakers (${dialect})`, () => {
    const h = useHarness(dialect);

    it('sets display names; assignees and the search index follow, transcript labels stay', async () => {
      const t = await h.tenant();
      const note = await processed(h, t.liveKey);
      expect(note.status).toBe('ready');
      const before = note.action_items.map((a) => a.assignee);
      expect(before).toContain('Speaker 2');

      const res = await patchSpeakers(h, t.liveKey, note.id, {
        speakers: [
          { label: 'Speaker 2', name: '  Maya Chen ' },
          { label: 'Speaker 1', name: 'Daniel Okafor' },
        ],
      });
      expect(res).toEqual({
        id: note.id,
        speakers: [
          { label: 'Speaker 1', name: 'Daniel Okafor' },
          { label: 'Speaker 2', name: 'Maya Chen' },
          { label: 'Speaker 3', name: 'Speaker 3' },
        ],
      });
      const after = await getNote(h, t.liveKey, note.id);
      expect(after.speakers).toEqual(res.speakers);
      expect(after.transcript).toBe(note.transcript);
      expect(after.action_items.map((a) => a.assignee)).toEqual(
        before.map((a) => (a === 'Speaker 2' ? 'Maya Chen' : a === 'Speaker 1' ? 'Daniel Okafor' : a)),
      );
      // The index is rebuilt in the background: the answer came before it, the workers bring it up to date.
      expect(await indexedText(h, note.id)).toContain('Speaker 2:');
      await runDueJobs(h.deps);
      const indexed = await indexedText(h, note.id);
      expect(indexed).toContain('Maya Chen:');
      expect(indexed).not.toContain('Speaker 2:');
      // Found by the new name through search.
      const search = await h.request('POST', '/v1/search', {
        key: t.liveKey,
        body: { query: 'Maya Chen budget report', min_relevance: 0 },
      });
      expect(search.status).toBe(200);
      expect(search.body.results.map((r: { note_id: string }) => r.note_id)).toContain(note.id);
    });

    it('merges two labels: segments, transcript lines, speakers and assignees follow', async () => {
      const t = await h.tenant();
      const note = await processed(h, t.liveKey, {
        speakers: [
          { label: 'Speaker 2', name: 'Maya' },
          { label: 'Speaker 3', name: 'Maya (phone)' },
        ],
      });
      const res = await patchSpeakers(h, t.liveKey, note.id, {
        merge: { from: 'Speaker 3', into: 'Speaker 2' },
        speakers: [{ label: 'Speaker 2', name: 'Maya Chen' }],
      });
      expect(res.speakers).toEqual([
        { label: 'Speaker 1', name: 'Speaker 1' },
        { label: 'Speaker 2', name: 'Maya Chen' },
      ]);
      const after = await getNote(h, t.liveKey, note.id);
      expect(after.segments!.map((s) => s.speaker)).toEqual([
        'Speaker 1',
        'Speaker 2',
        'Speaker 2',
        'Speaker 1',
      ]);
      expect(after.segments!.map((s) => s.text)).toEqual(note.segments!.map((s) => s.text));
      expect(after.transcript.split('\n')[2]).toBe(
        'Speaker 2: I will draft the hiring plan and share it with everyone tomorrow.',
      );
      const assignees = new Set(after.action_items.map((a) => a.assignee).filter(Boolean));
      expect(assignees.has('Maya')).toBe(false);
      expect(assignees.has('Maya (phone)')).toBe(false);
      expect([...assignees]).toContain('Maya Chen');
      await runDueJobs(h.deps);
      expect(await indexedText(h, note.id)).not.toContain('Maya (phone)');
    });

    it('swaps two names in one request without mixing up their action items', async () => {
      const t = await h.tenant();
      const note = await processed(h, t.liveKey, {
        speakers: [
          { label: 'Speaker 2', name: 'Ana' },
          { label: 'Speaker 3', name: 'Ben' },
        ],
      });
      const byText = (n: NoteDetail) => Object.fromEntries(n.action_items.map((a) => [a.text, a.assignee]));
      const before = byText(note);
      expect(Object.values(before)).toEqual(expect.arrayContaining(['Ana', 'Ben']));
      await patchSpeakers(h, t.liveKey, note.id, {
        speakers: [
          { label: 'Speaker 2', name: 'Ben' },
          { label: 'Speaker 3', name: 'Ana' },
        ],
      });
      const swap = (a?: string) => (a === 'Ana' ? 'Ben' : a === 'Ben' ? 'Ana' : a);
      const after = byText(await getNote(h, t.liveKey, note.id));
      expect(after).toEqual(Object.fromEntries(Object.entries(before).map(([k, v]) => [k, swap(v)])));
    });

    it('works on a note still processing, and the same request again changes nothing more', async () => {
      const t = await h.tenant();
      const note = await createNote(h, t.testKey, { transcript: TRANSCRIPT });
      const body = { speakers: [{ label: 'Speaker 1', name: 'Chair' }] };
      const first = await patchSpeakers(h, t.testKey, note.id, body);
      const second = await patchSpeakers(h, t.testKey, note.id, body);
      expect(second).toEqual(first);
      // A rebuild still queued covers the second edit too: one job for both.
      const queued = await h.deps.db
        .selectFrom('jobs')
        .select('id')
        .where('type', '=', 'reindex_note')
        .where('status', '=', 'queued')
        .where('account_id', '=', t.accountId)
        .execute();
      expect(queued).toHaveLength(1);
      await runDueJobs(h.deps);
      const after = await getNote(h, t.testKey, note.id);
      expect(after.speakers[0]).toEqual({ label: 'Speaker 1', name: 'Chair' });
      expect(await indexedText(h, note.id)).toContain('Chair:');
    });
  });
}
