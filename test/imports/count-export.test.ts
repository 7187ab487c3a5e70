import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { countZipExportFiles } from '../../src/features/imports/read-export.ts';
import { writeZip } from './zip-fixtures.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-count-'));

it('counts the Markdown and JSON entries of a ZIP from its directory, other entries not', async () => {
  const file = path.join(dir, 'export.zip');
  await writeZip(file, [
    { name: 'lifelogs/a.md', data: '# A\n' },
    { name: 'lifelogs/b.md', data: '# B\n' },
    { name: 'live/notes/note_x.json', data: '{}' },
    { name: 'live/audio/rec_x.mp3', data: 'ID3' },
    { name: 'README.txt', data: 'hello' },
  ]);
  expect(await countZipExportFiles(file)).toBe(3);
});

it('counts an archive that cannot be opened as one file (its error)', async () => {
  const file = path.join(dir, 'broken.zip');
  fs.writeFileSync(file, 'not a zip at all');
  expect(await countZipExportFiles(file)).toBe(1);
});
