import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { createNote } from '../notes/notes.fixtures.ts';
import { databaseEnv, runCli } from './cli-process.ts';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-export-'));

for (const dialect of DIALECTS) {
  describe(`minutes export (${dialect})`, () => {
    const h = useHarness(dialect);
    const settings = () => ({ ...databaseEnv(h.db.database), LOG_LEVEL: 'silent' });

    it('writes one Obsidian-friendly file per note of the account, filtered by date and tag', async () => {
      const t = await h.tenant();
      const other = await h.tenant();
      const first = await createNote(h, t.liveKey, {
        title: 'Weekly sync',
        created_at: '2026-03-02T09:00:00Z',
        tags: ['team'],
      });
      await createNote(h, t.liveKey, {
        title: 'Weekly sync',
        created_at: '2026-03-02T15:00:00Z',
      });
      await createNote(h, t.liveKey, {
        title: 'Q3 budget: review / "final"',
        created_at: '2026-04-10T09:00:00Z',
        tags: ['Team'],
      });
      await createNote(h, other.liveKey, { title: 'Not mine', created_at: '2026-03-03T09:00:00Z' });
      await createNote(h, t.testKey, { title: 'Test mode', created_at: '2026-03-03T09:00:00Z' });

      const dir = path.join(tempDir(), 'vault', 'Meetings');
      const all = await runCli(['export', dir, '--account', t.email, '--json'], settings());
      expect(all.code, all.stderr).toBe(0);
      // Not a terminal: no progress bar.
      expect(all.stderr).toBe('');
      const files = (JSON.parse(all.stdout) as { file: string }[]).map((r) => r.file);
      // Newest first; the second note of the same name gets the end of its id.
      expect(files).toEqual([
        '2026-04-10 Q3 budget review final.md',
        '2026-03-02 Weekly sync.md',
        `2026-03-02 Weekly sync (${first.id.slice(-6)}).md`,
      ]);
      expect(fs.readdirSync(dir).sort()).toEqual([...files].sort());
      // Notes are private: owner-only files, like DATA_DIR.
      for (const file of files) expect(fs.statSync(path.join(dir, file)).mode & 0o777).toBe(0o600);
      const md = fs.readFileSync(path.join(dir, files[0]!), 'utf8');
      expect(
        md.startsWith('---\ntitle: "Q3 budget: review / \\"final\\""\ndate: "2026-04-10T09:00:00.000Z"\n'),
      ).toBe(true);

      const filtered = tempDir();
      const some = await runCli(
        [
          'export',
          filtered,
          '--account',
          t.email,
          '--format',
          'srt',
          '--from',
          '2026-03-01',
          '--to',
          '2026-03-31',
          '--tag',
          'TEAM',
        ],
        settings(),
      );
      expect(some.code, some.stderr).toBe(0);
      expect(some.stdout).toBe(`Exported 1 note to ${filtered}.\n`);
      expect(fs.readdirSync(filtered)).toEqual(['2026-03-02 Weekly sync.srt']);
      expect(fs.readFileSync(path.join(filtered, '2026-03-02 Weekly sync.srt'), 'utf8')).toMatch(
        /^1\n00:00:00,000 --> \d\d:\d\d:\d\d,\d{3}\nAlice: Hello everyone\.\n/,
      );

      const test = tempDir();
      const inTest = await runCli(
        ['export', test, '--account', t.email, '--mode', 'test', '--json'],
        settings(),
      );
      expect(inTest.code, inTest.stderr).toBe(0);
      expect(JSON.parse(inTest.stdout).map((r: { file: string }) => r.file)).toContain(
        '2026-03-03 Test mode.md',
      );
      expect(fs.readdirSync(test)).not.toContain('2026-03-03 Not mine.md');
    }, 60_000);

    it('usage errors are one line on stderr and exit 1', async () => {
      const t = await h.tenant();
      for (const args of [
        ['--format', 'pdf'],
        ['--from', 'last week'],
        ['--account', 'nobody@example.com'],
      ]) {
        const res = await runCli(['export', tempDir(), '--account', t.email, ...args], settings());
        expect(res.code, args.join(' ')).toBe(1);
        expect(res.stderr.trim().split('\n')).toHaveLength(1);
        expect(res.stderr).toMatch(/error/);
      }
    }, 60_000);
  });
}
