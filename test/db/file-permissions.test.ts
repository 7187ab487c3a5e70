import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connect.ts';
import { migrate } from '../../src/db/migrate.ts';
import { audioKey } from '../../src/features/storage/audio-storage.ts';
import { createLocalDirStorage } from '../../src/features/storage/local-dir-storage.ts';
import { createTempPath, PRIVATE_FILE_MODE } from '../../src/features/storage/temp-files.ts';
import { newId } from '../../src/lib/ids.ts';

const modeOf = (p: string) => fs.statSync(p).mode & 0o777;

/** Notes are private: the SQLite files and audio are readable by the service's user only. */
describe.skipIf(process.platform === 'win32')('data files are created 0600 in 0700 folders', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-perm-'));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('the SQLite database, its -wal and -shm', async () => {
    const file = path.join(root, 'data', 'minutes.sqlite');
    const handle = openDatabase({ dialect: 'sqlite', file });
    try {
      await migrate(handle.db, 'sqlite');
      await sql`INSERT INTO accounts (id, email, name, created_at) VALUES ('acct_x', 'x@example.com', NULL, '2026-01-01')`.execute(
        handle.db,
      );
      expect(modeOf(path.dirname(file))).toBe(0o700);
      for (const f of [file, `${file}-wal`, `${file}-shm`]) {
        expect(fs.existsSync(f), f).toBe(true);
        expect(modeOf(f).toString(8), f).toBe('600');
      }
    } finally {
      await handle.close();
    }
  });

  it('narrows a world-readable database file left by an older start', async () => {
    const file = path.join(root, 'old', 'minutes.sqlite');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    fs.chmodSync(file, 0o644);
    const handle = openDatabase({ dialect: 'sqlite', file });
    await handle.close();
    expect(modeOf(file).toString(8)).toBe('600');
  });

  it('audio files and the folders above them, and upload temp files', async () => {
    const dataDir = path.join(root, 'audio-data');
    const temp = await createTempPath(dataDir);
    fs.writeFileSync(temp, 'RIFF', { mode: PRIVATE_FILE_MODE });
    expect(modeOf(path.dirname(temp)).toString(8)).toBe('700');
    expect(modeOf(temp).toString(8)).toBe('600');
    const storage = createLocalDirStorage(dataDir);
    const key = audioKey({ accountId: 'acct_perm', mode: 'live' }, newId('recording'), '.wav');
    await storage.put(key, temp);
    const stored = path.join(dataDir, 'audio', ...key.split('/'));
    expect(modeOf(stored).toString(8)).toBe('600');
    for (let dir = path.dirname(stored); dir !== dataDir; dir = path.dirname(dir)) {
      expect(modeOf(dir).toString(8), dir).toBe('700');
    }
  });
});
