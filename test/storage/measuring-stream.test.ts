import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { writeMeasured } from '../../src/features/storage/measuring-stream.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-measured-'));

describe('writeMeasured', () => {
  it('writes the bytes and gives their size and SHA-256', async () => {
    const bytes = Buffer.from('RIFF'.repeat(50_000));
    const file = path.join(dir, 'whole');
    const measured = await writeMeasured(Readable.from([bytes.subarray(0, 7), bytes.subarray(7)]), file, {
      flags: 'wx',
      mode: 0o600,
    });
    expect(measured).toEqual({
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    expect(fs.readFileSync(file)).toEqual(bytes);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('fails only once its file is closed, so removing the file then removes it for good', async () => {
    for (let i = 0; i < 50; i++) {
      const file = path.join(dir, `broken-${i}`);
      const source = new Readable({ read() {} });
      source.destroy(new Error('the client went away'));
      await expect(writeMeasured(source, file, { flags: 'wx', mode: 0o600 })).rejects.toThrow(/went away/);
      fs.rmSync(file, { force: true });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fs.readdirSync(dir).filter((name) => name.startsWith('broken-'))).toEqual([]);
  });

  it('reports a file that cannot be created, without an unhandled error', async () => {
    const file = path.join(dir, 'taken');
    fs.writeFileSync(file, 'x');
    await expect(
      writeMeasured(Readable.from([Buffer.from('a')]), file, { flags: 'wx', mode: 0o600 }),
    ).rejects.toThrow(/EEXIST/);
  });
});
