import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ExportFile, readZipExport } from '../../src/features/imports/read-export.ts';
import { writeZip } from './zip-fixtures.ts';

const LIMITS = { maxEntryBytes: 256 * 1024 };
const lifelog = (i: number) =>
  `# Call ${i}\n\n- Sam (10/9/25 2:30 PM): We talked about item ${i}.\n- Alex (10/9/25 2:31 PM): Fine.\n`;

/** What a reading gives, by name, with the error or the text read. */
async function given(files: AsyncGenerator<ExportFile>) {
  const out: [string, string][] = [];
  for await (const f of files)
    out.push([
      f.name,
      'error' in f ? `error: ${f.error}` : 'bytes' in f ? Buffer.from(f.bytes).toString() : 'disk',
    ]);
  return out;
}

// A step of an import starts after the files earlier steps counted (decision 92's companion in runImportStep):
// the files it skips are not read, but they must be the same files, errors included, or a resumed import would
// count a file twice or miss one.
describe('reading a ZIP export from a position', () => {
  let dir: string;
  let zip: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-zip-skip-'));
    zip = path.join(dir, 'export.zip');
    await writeZip(zip, [
      { name: 'lifelogs/2025-10-09_14h30m00s_a.md', data: lifelog(1) },
      { name: '../lifelogs/evil.md', data: lifelog(2) },
      { name: 'audio/readme.txt', data: 'not part of an export' },
      { name: 'lifelogs/2025-10-10_00h00m00s_bomb.md', data: Buffer.alloc(5 * 1024 * 1024, 0x41) },
      { name: 'lifelogs/2025-10-10_00h00m01s_b.md', data: lifelog(3) },
      {
        name: 'lifelogs/2025-10-10_00h00m02s_huge.md',
        data: `${'x'.repeat(LIMITS.maxEntryBytes)} ${Math.random()}`,
      },
      { name: 'lifelogs/2025-10-10_00h00m03s_c.md', data: lifelog(4) },
    ]);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('from every position gives exactly what a whole reading gives after it, errors included', async () => {
    const whole = await given(readZipExport(zip, LIMITS));
    expect(whole.map(([name]) => name)).toEqual([
      'lifelogs/2025-10-09_14h30m00s_a.md',
      '../lifelogs/evil.md',
      'lifelogs/2025-10-10_00h00m00s_bomb.md',
      'lifelogs/2025-10-10_00h00m01s_b.md',
      'lifelogs/2025-10-10_00h00m02s_huge.md',
      'lifelogs/2025-10-10_00h00m03s_c.md',
    ]);
    for (let skip = 0; skip <= whole.length + 1; skip++)
      expect(await given(readZipExport(zip, LIMITS, skip))).toEqual(whole.slice(skip));
  });

  it('a file that is not a ZIP fails once, and not again past it', async () => {
    const bad = path.join(dir, 'not.zip');
    fs.writeFileSync(bad, 'PK but not really');
    expect(await given(readZipExport(bad, LIMITS))).toEqual([
      ['not.zip', expect.stringMatching(/^error: not a readable ZIP archive/)],
    ]);
    expect(await given(readZipExport(bad, LIMITS, 1))).toEqual([]);
  });
});
