import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/cli-process.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { wavFile } from '../recordings/audio-fixtures.ts';
import { tempDataDir, upload } from '../recordings/helpers.ts';
import { writeZip } from './zip-fixtures.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-import-cli-'));

for (const dialect of DIALECTS) {
  describe(`minutes import of exports and minutes export --all (${dialect})`, () => {
    const dataDir = tempDataDir();
    const h = useHarness(dialect, { DATA_DIR: dataDir });
    const settings = () => ({
      DATABASE_URL: h.db.database.dialect === 'sqlite' ? `sqlite://${h.db.database.file}` : h.db.database.url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
    });

    it('imports a Limitless ZIP and an Omi export found from their content, names the wearer, reports a bad item, then skips all', async () => {
      const t = await h.tenant();
      const dir = tempDir();
      const lifelogs = path.join(FIXTURES, 'limitless/lifelogs');
      await writeZip(
        path.join(dir, 'limitless-export.zip'),
        fs
          .readdirSync(lifelogs)
          .map((f) => ({ name: `lifelogs/${f}`, data: fs.readFileSync(path.join(lifelogs, f)) })),
      );
      fs.copyFileSync(path.join(FIXTURES, 'omi/export-all.json'), path.join(dir, 'omi.json'));
      fs.writeFileSync(path.join(dir, 'call.txt'), 'Ana: The budget is approved.');
      const first = await runCli(['import', dir, '--account', t.email, '--me', 'Sam', '--json'], settings());
      expect(first.code).toBe(1);
      const outcomes = JSON.parse(first.stdout.split('\n[')[0] ?? '') as { item: string; outcome: string }[];
      expect(outcomes.map((o) => [path.basename(o.item), o.outcome])).toEqual([
        ['2025-10-08_07h00m25s_Weekly-planning-with-Dana.md', 'imported'],
        ['2025-10-09_14h30m00s_Coffee-order.md', 'imported'],
        ['omi.json: conversations[0] (c1a7e0b2-5f6d-4c1e-9a55-0f1d2e3c4b5a)', 'imported'],
        ['omi.json: conversations[1] (7d3f9e21-aa10-4b8e-8c2d-91b0c4e5f6a7)', 'imported'],
        ['omi.json: conversations[2]', 'failed'],
      ]);
      expect(first.stderr).toContain('failed: ');
      expect(first.stderr).toContain('conversations[2]: not an Omi conversation: created_at');
      const notes = await h.request('GET', '/v1/notes?limit=100', { key: t.liveKey });
      // The lifelogs, the two good conversations and the transcript beside them.
      expect(notes.body.data).toHaveLength(5);
      const planning = notes.body.data.find(
        (n: { title: string }) => n.title === 'Weekly planning with Dana',
      );
      const detail = await h.request('GET', `/v1/notes/${planning.id}`, { key: t.liveKey });
      expect(detail.body.speakers[0]).toEqual({ label: '1', name: 'Sam' });

      const again = await runCli(['import', dir, '--account', t.email], settings());
      expect(again.stdout).toContain('Imported 0 notes; skipped 4 already imported; 1 failed.');
      expect((await h.request('GET', '/v1/notes?limit=100', { key: t.liveKey })).body.data).toHaveLength(5);
    });

    it('--from forces the source, and export --all writes a manifest, a file per note and its audio, which import brings back', async () => {
      const t = await h.tenant();
      const dir = tempDir();
      fs.copyFileSync(path.join(FIXTURES, 'omi/conversations-array.json'), path.join(dir, 'backup.json'));
      const forced = await runCli(['import', dir, '--account', t.email, '--from', 'omi'], settings());
      expect(forced.stdout).toContain('Imported 1 note; skipped 0 already imported; 0 failed.');
      const wav = wavFile(1);
      const recorded = await upload(h, { key: t.liveKey, file: { bytes: wav, filename: 'call.wav' } });
      expect(recorded.status).toBe(202);
      const out = tempDir();
      const exported = await runCli(['export', '--all', out, '--account', t.email], settings());
      expect(exported.code).toBe(0);
      expect(exported.stdout).toMatch(/^Exported 2 notes \(format version 2\) to /);
      const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
      expect(manifest).toMatchObject({ format: 'minutes-account-export', version: 2 });
      const audioFile = `${recorded.body.recording_id}.wav`;
      const written = fs.readdirSync(path.join(out, 'live/notes'));
      expect(written.filter((f) => f.endsWith('.json'))).toHaveLength(2);
      expect(written).toContain(`${recorded.body.note_id}.json`);
      expect(written.filter((f) => !f.endsWith('.json'))).toEqual([audioFile]);
      expect(fs.readFileSync(path.join(out, 'live/notes', audioFile)).equals(wav)).toBe(true);
      expect(fs.statSync(path.join(out, 'live/notes', audioFile)).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.join(out, 'manifest.json')).mode & 0o777).toBe(0o600);

      // Into another account: the audio comes in with its note (a new recording id here), not as a file of its own.
      const other = await h.tenant();
      const imported = await runCli(['import', out, '--account', other.email, '--json'], settings());
      expect(imported.code, imported.stderr).toBe(0);
      expect((JSON.parse(imported.stdout) as { outcome: string }[]).map((o) => o.outcome)).toEqual([
        'imported',
        'imported',
      ]);
      const notes = await h.request('GET', '/v1/notes?limit=100', { key: other.liveKey });
      expect(notes.body.data).toHaveLength(2);
      const copy = notes.body.data.find((n: { recording_id?: string }) => n.recording_id);
      const res = await h.app.request(`/v1/recordings/${copy.recording_id}/audio`, {
        headers: { authorization: `Bearer ${other.liveKey}` },
      });
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(wav)).toBe(true);
    });
  });
}
