import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importExport } from '../../src/features/imports/import-export.service.ts';
import { readFolderExport, readZipExport } from '../../src/features/imports/read-export.ts';
import { actorOf } from '../helpers/actor.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { processAll } from './export-fixtures.ts';
import { writeZip } from './zip-fixtures.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const LIMITS = { maxEntryBytes: 256 * 1024 };
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-imports-'));

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect);

    it('imports a Limitless lifelogs folder and an Omi export with their times, speakers, titles, headings and action items; the pipeline fills the rest; again creates nothing', async () => {
      const t = await h.tenant();
      const actor = actorOf(t.accountId);
      async function* both() {
        yield* readFolderExport(path.join(FIXTURES, 'limitless'), LIMITS);
        yield* readFolderExport(path.join(FIXTURES, 'omi'), LIMITS);
      }
      const first = await importExport(h.deps, actor, both(), { me: 'Sam' });
      expect(first.map((o) => [o.item, o.outcome])).toEqual([
        ['lifelogs/2025-10-08_07h00m25s_Weekly-planning-with-Dana.md', 'imported'],
        ['lifelogs/2025-10-09_14h30m00s_Coffee-order.md', 'imported'],
        ['conversations-array.json: conversations[0] (0b5e8c1d-2a3f-4e6b-9c7d-8e9f0a1b2c3d)', 'imported'],
        ['export-all.json: conversations[0] (c1a7e0b2-5f6d-4c1e-9a55-0f1d2e3c4b5a)', 'imported'],
        ['export-all.json: conversations[1] (7d3f9e21-aa10-4b8e-8c2d-91b0c4e5f6a7)', 'imported'],
        ['export-all.json: conversations[2]', 'failed'],
      ]);
      await processAll(h);
      const noteOf = async (i: number) => {
        const o = first[i];
        if (!o || o.outcome === 'failed') throw new Error('no note');
        return (await h.request('GET', `/v1/notes/${o.note_id}?include=segments`, { key: t.liveKey })).body;
      };
      const planning = await noteOf(0);
      expect(planning).toMatchObject({
        title: 'Weekly planning with Dana',
        created_at: '2025-10-08T07:00:25.000Z',
        status: 'ready',
        speakers: [
          { label: '1', name: 'Sam' },
          { label: '2', name: 'Speaker 2' },
        ],
      });
      expect(planning.summary).not.toBe('');
      // Two headings share a time: their order among themselves is the ids'.
      expect(planning.highlights.map((x: { text: string }) => x.text).sort()).toEqual([
        'Dana will send the pricing draft by Friday',
        'Launch timeline for the beta',
        'Pricing and the team plan',
      ]);
      const contract = await noteOf(3);
      expect(contract).toMatchObject({
        title: 'Vendor contract review',
        created_at: '2025-10-21T16:00:00.000Z',
      });
      expect(
        contract.action_items
          .map((a: { text: string; status: string; due: string | null }) => [a.text, a.status, a.due ?? null])
          .sort(),
      ).toEqual([
        ['Ask the vendor for the SLA credits table', 'pending', '2025-10-24'],
        ['Put the renewal date in the calendar', 'pending', '2025-11-15'],
        ['Send the signed contract to legal', 'completed', null],
      ]);
      const search = await h.request('POST', '/v1/search', {
        key: t.liveKey,
        body: { query: 'pricing draft for the team plan' },
      });
      expect(search.body.results.map((r: { note_id: string }) => r.note_id)).toContain(planning.id);

      const again = await importExport(h.deps, actor, readFolderExport(path.join(FIXTURES, 'omi'), LIMITS));
      expect(again.map((o) => o.outcome)).toEqual(['skipped', 'skipped', 'skipped', 'failed']);
      const list = await h.request('GET', '/v1/notes?limit=100', { key: t.liveKey });
      expect(list.body.data).toHaveLength(5);
      // The same items in another account are that account's own notes.
      const other = await h.tenant();
      const theirs = await importExport(
        h.deps,
        actorOf(other.accountId),
        readFolderExport(path.join(FIXTURES, 'omi'), LIMITS),
      );
      expect(theirs.filter((o) => o.outcome === 'imported')).toHaveLength(3);
    });

    it('refuses a Minutes export of a newer format version before importing any of it', async () => {
      const t = await h.tenant();
      const dir = tempDir();
      fs.mkdirSync(path.join(dir, 'live/notes'), { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'manifest.json'),
        JSON.stringify({
          format: 'minutes-account-export',
          version: 3,
          exported_at: '2026-01-01T00:00:00Z',
          spaces: [],
        }),
      );
      fs.copyFileSync(
        path.join(FIXTURES, 'omi/conversations-array.json'),
        path.join(dir, 'live/notes/a.json'),
      );
      const outcomes = await importExport(h.deps, actorOf(t.accountId), readFolderExport(dir, LIMITS));
      expect(outcomes).toEqual([
        {
          item: 'manifest.json',
          outcome: 'failed',
          error: "the export's format version 3 is newer than this Minutes reads (2): upgrade Minutes first",
        },
      ]);
    });

    it('reads a ZIP entry by entry: unsafe names, bombs, huge entries, bad encodings and malformed files fail by name, the rest is imported', async () => {
      const t = await h.tenant();
      const dir = tempDir();
      const zip = path.join(dir, 'export.zip');
      const lifelog = fs.readFileSync(
        path.join(FIXTURES, 'limitless/lifelogs/2025-10-09_14h30m00s_Coffee-order.md'),
      );
      const spread = Array.from({ length: 60_000 }, (_, i) => `${(i * 7919) % 100_003}`).join(' ');
      await writeZip(zip, [
        { name: 'lifelogs/2025-10-09_14h30m00s_Coffee-order.md', data: lifelog },
        { name: '../lifelogs/evil.md', data: lifelog },
        { name: 'lifelogs/2025-10-10_00h00m00s_bomb.md', data: Buffer.alloc(5 * 1024 * 1024, 0x41) },
        {
          name: 'lifelogs/2025-10-10_00h00m01s_huge.md',
          data: `> [1](#startMs=1759933800000&endMs=1): ${spread}`,
        },
        {
          name: 'lifelogs/2025-10-10_00h00m02s_latin1.md',
          data: Buffer.from('> [1](#startMs=1759933800000&endMs=1759933801000): caf\xe9', 'latin1'),
        },
        { name: 'lifelogs/2025-10-10_00h00m03s_empty.md', data: '# Nothing said\n' },
        { name: 'omi.json', data: '{"conversations": [' },
        { name: 'audio/readme.txt', data: 'not part of an export' },
      ]);
      const outcomes = await importExport(h.deps, actorOf(t.accountId), readZipExport(zip, LIMITS));
      expect(
        outcomes.map((o) => [
          o.item,
          o.outcome === 'failed' ? o.error.split(' (')[0]?.split(':')[0] : o.outcome,
        ]),
      ).toEqual([
        ['lifelogs/2025-10-09_14h30m00s_Coffee-order.md', 'imported'],
        ['../lifelogs/evil.md', 'unsafe entry name'],
        ['lifelogs/2025-10-10_00h00m00s_bomb.md', expect.stringMatching(/^expands \d+ times/)],
        [
          'lifelogs/2025-10-10_00h00m01s_huge.md',
          `larger than the ${LIMITS.maxEntryBytes} bytes an entry may have`,
        ],
        ['lifelogs/2025-10-10_00h00m02s_latin1.md', 'not valid UTF-8 text'],
        ['lifelogs/2025-10-10_00h00m03s_empty.md', 'no utterances found'],
        ['omi.json', 'not valid JSON'],
      ]);
      const list = await h.request('GET', '/v1/notes', { key: t.liveKey });
      expect(list.body.data).toHaveLength(1);

      fs.writeFileSync(path.join(dir, 'not.zip'), 'PK but not really');
      const broken = await importExport(
        h.deps,
        actorOf(t.accountId),
        readZipExport(path.join(dir, 'not.zip'), LIMITS),
      );
      expect(broken).toEqual([
        { item: 'not.zip', outcome: 'failed', error: expect.stringMatching(/^not a readable ZIP archive/) },
      ]);
    });
  });
}
