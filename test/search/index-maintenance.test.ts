import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ensureSpaceIndexed,
  indexNote,
  reindexAll,
  removeNoteFromIndex,
} from '../../src/features/search/index-note.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Tenant, useHarness } from '../helpers/harness.ts';
import { callOk, useMcpEndpoint } from '../mcp/mcp-helpers.ts';
import { addNote, search } from './search.fixtures.ts';

for (const dialect of DIALECTS) {
  describe(`search index maintenance (${dialect})`, () => {
    const h = useHarness(dialect);
    const mcp = useMcpEndpoint(h);
    let tenant: Tenant;
    const space = () => ({ accountId: tenant.accountId, mode: 'live' as const });
    const chunkCount = async (noteId: string) =>
      Number(
        (
          await sql<{ n: number }>`SELECT count(*) AS n FROM search_chunks WHERE note_id = ${noteId}`.execute(
            h.db.db,
          )
        ).rows[0]!.n,
      );

    beforeAll(async () => {
      tenant = await h.tenant();
    });

    it('chunks a note into title, summary, highlights, action items and timed transcript passages', async () => {
      const id = await addNote(h, tenant, {
        title: 'Launch sync',
        segments: Array.from({ length: 30 }, (_, i) => ({
          speaker: i % 2 ? 'S2' : 'S1',
          start_ms: i * 10_000,
          end_ms: i * 10_000 + 9_000,
          text: `Point ${i}: the launch checklist item number ${i} needs an owner and a date. Important: remember this.`,
        })),
        speakers: [
          { label: 'S1', name: 'Alice Chen' },
          { label: 'S2', name: 'Bob Smith' },
        ],
      });
      const rows = await sql<{ kind: string; start_ms: number | null; text: string }>`
        SELECT kind, start_ms, text FROM search_chunks WHERE note_id = ${id} ORDER BY position`.execute(
        h.db.db,
      );
      const kinds = rows.rows.map((r) => r.kind);
      expect(kinds[0]).toBe('title');
      expect(kinds).toContain('summary');
      expect(kinds).toContain('highlight');
      const passages = rows.rows.filter((r) => r.kind === 'transcript');
      expect(passages.length).toBeGreaterThan(1);
      // Passages start at a turn, with that turn's time, and name speakers by display name.
      for (const p of passages) expect(Number(p.start_ms) % 10_000).toBe(0);
      expect(passages[0]!.text).toMatch(/^Alice Chen: Point 0/);
      expect(passages.map((p) => Number(p.start_ms))).toEqual(
        [...passages.map((p) => Number(p.start_ms))].sort((a, b) => a - b),
      );
    });

    it('follows a title change (what PATCH /v1/notes/:id triggers) without re-embedding the rest', async () => {
      const id = await addNote(h, tenant, {
        title: 'Weekly sync',
        transcript: 'Ann: The xylophone order arrived.\nBen: Good, the xylophone goes to the music room.',
      });
      expect(await search(h, tenant.liveKey, { query: 'Obsidian offsite' })).toEqual([]);
      const patched = await h.request('PATCH', `/v1/notes/${id}`, {
        key: tenant.liveKey,
        body: { title: 'Obsidian offsite' },
      });
      expect(patched.status).toBe(200);
      const results = await search(h, tenant.liveKey, { query: 'Obsidian offsite' });
      expect(results.map((r) => r.note_id)).toEqual([id]);
      expect(results[0]!.title).toBe('Obsidian offsite');
      expect(await search(h, tenant.liveKey, { query: 'xylophone' })).toHaveLength(1);
    });

    // The index is the service's to maintain: a rename is found by its new title and not its old one,
    // through whichever door it came (REST PATCH or MCP update_note).
    for (const via of ['REST', 'MCP'] as const) {
      it(`finds a note renamed through ${via} by its new title, not its old one`, async () => {
        const t = await h.tenant();
        const id = await addNote(h, t, {
          title: 'Quokka budget planning',
          transcript: 'Ann: The marimba order arrived.\nBen: Good, the marimba goes to the music room.',
        });
        expect(
          (await search(h, t.liveKey, { query: 'Quokka budget planning' })).map((r) => r.note_id),
        ).toEqual([id]);
        if (via === 'REST') {
          const res = await h.request('PATCH', `/v1/notes/${id}`, {
            key: t.liveKey,
            body: { title: 'Narwhal retrospective' },
          });
          expect(res.status).toBe(200);
        } else {
          const client = await mcp.connect(t.liveKey);
          await callOk(client, 'update_note', { note_id: id, title: 'Narwhal retrospective' });
        }
        const renamed = await search(h, t.liveKey, { query: 'Narwhal retrospective' });
        expect(renamed.map((r) => r.note_id)).toEqual([id]);
        expect(renamed[0]!.title).toBe('Narwhal retrospective');
        expect(await search(h, t.liveKey, { query: 'Quokka budget planning' })).toEqual([]);
      });
    }

    it('forgets a deleted note: chunks, keyword entries and vector go with it', async () => {
      const id = await addNote(h, tenant, {
        title: 'Pangolin review',
        transcript:
          'Cy: The pangolin enclosure needs a new heater.\nDi: I will order the pangolin heater today.',
      });
      expect((await search(h, tenant.liveKey, { query: 'pangolin heater' })).map((r) => r.note_id)).toEqual([
        id,
      ]);
      // What DELETE /v1/notes/:id does, with the index removal in the same transaction.
      await h.db.db.transaction().execute(async (trx) => {
        await removeNoteFromIndex(h.deps, space(), id, trx);
        await trx.deleteFrom('notes').where('id', '=', id).execute();
      });
      expect(await chunkCount(id)).toBe(0);
      const after = await search(h, tenant.liveKey, { query: 'pangolin heater', min_relevance: 0 });
      expect(after.map((r) => r.note_id)).not.toContain(id);
      expect(await search(h, tenant.liveKey, { query: 'pangolin heater' })).toEqual([]);
    });

    it('forgets a note deleted without the search feature (chunks cascade with the note)', async () => {
      const id = await addNote(h, tenant, {
        title: 'Ocelot notes',
        transcript: 'Ed: The ocelot sighting was confirmed by the rangers.',
      });
      const res = await h.request('DELETE', `/v1/notes/${id}`, { key: tenant.liveKey });
      expect(res.status).toBe(200);
      expect(await chunkCount(id)).toBe(0);
      const after = await search(h, tenant.liveKey, { query: 'ocelot sighting', min_relevance: 0 });
      expect(after.map((r) => r.note_id)).not.toContain(id);
    });

    it('indexes nothing for a note that is still processing, and removes a note that is gone', async () => {
      const res = await h.request('POST', '/v1/notes', {
        key: tenant.liveKey,
        body: { title: 'Capybara plan', transcript: 'Fay: The capybara pond is ready.' },
      });
      expect(await indexNote(h.deps, space(), res.body.id)).toBe('removed');
      expect(await chunkCount(res.body.id)).toBe(0);
      expect(await indexNote(h.deps, space(), 'note_doesnotexist000000000000')).toBe('removed');
    });

    it('catches up on processed notes that were never indexed, once per process', async () => {
      const id = await addNote(h, tenant, {
        title: 'Wombat audit',
        transcript: 'Gus: The wombat audit is done.',
      });
      await removeNoteFromIndex(h.deps, space(), id);
      await ensureSpaceIndexed(h.deps, { accountId: tenant.accountId, mode: 'live' });
      // This space was covered already in this process: the note stays out until a reindex.
      expect(await chunkCount(id)).toBe(0);
      const other = await h.tenant();
      const otherId = await addNote(h, other, { title: 'Wombat two', transcript: 'Hal: Another wombat.' });
      await removeNoteFromIndex(h.deps, { accountId: other.accountId, mode: 'live' }, otherId);
      await ensureSpaceIndexed(h.deps, { accountId: other.accountId, mode: 'live' });
      expect(await chunkCount(otherId)).toBeGreaterThan(0);
      const progress: number[] = [];
      const result = await reindexAll(h.deps, (p) => progress.push(p.done));
      expect(result.notes).toBeGreaterThanOrEqual(2);
      expect(progress.at(-1)).toBe(result.notes);
      expect(await chunkCount(id)).toBeGreaterThan(0);
      expect((await search(h, tenant.liveKey, { query: 'wombat audit' })).map((r) => r.note_id)).toEqual([
        id,
      ]);
    });
  });
}
