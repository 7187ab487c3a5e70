import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ORPHAN_AUDIO_AGE_MS, purgeOrphanAudio } from '../../src/features/retention/purge-orphan-audio.ts';
import { audioKey } from '../../src/features/storage/audio-storage.ts';
import { createLocalDirStorage } from '../../src/features/storage/local-dir-storage.ts';
import { newId } from '../../src/lib/ids.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { wavFile } from '../recordings/audio-fixtures.ts';
import { filesUnder, tempDataDir, upload } from '../recordings/helpers.ts';

for (const dialect of DIALECTS) {
  describe(`audio no recording refers to (${dialect})`, () => {
    const dataDir = tempDataDir();
    const h = useHarness(dialect, { DATA_DIR: dataDir, WORKER: 'false' });
    const audioDir = path.join(dataDir, 'audio');

    /** Stores a file under `key` as an import would before its rows, written `ageMs` ago. */
    async function storeFile(key: string, ageMs: number) {
      const temp = path.join(dataDir, `${newId('recording')}.tmp`);
      fs.writeFileSync(temp, 'RIFF');
      await h.deps.audio.put(key, temp);
      const at = new Date(Date.now() - ageMs);
      fs.utimesSync(path.join(audioDir, ...key.split('/')), at, at);
    }

    it('removes old files without a recording, keeps recorded and recent ones and what is not an audio key', async () => {
      const t = await h.tenant();
      const other = await h.tenant();
      const uploaded = await upload(h, {
        key: t.liveKey,
        file: { bytes: wavFile(1), filename: 'kept.wav', type: 'audio/wav' },
      });
      expect(uploaded.status).toBe(202);
      const [recorded] = filesUnder(audioDir);
      expect(recorded).toBeDefined();
      const old = ORPHAN_AUDIO_AGE_MS + 60_000;
      // The recorded file is old too: its row keeps it.
      const agedAt = new Date(Date.now() - old);
      fs.utimesSync(path.join(audioDir, recorded!), agedAt, agedAt);

      const space = { accountId: t.accountId, mode: 'live' as const };
      const orphan = audioKey(space, newId('recording'), '.wav');
      const fresh = audioKey(space, newId('recording'), '.wav');
      const otherOrphan = audioKey({ accountId: other.accountId, mode: 'test' }, newId('recording'), '.mp3');
      await storeFile(orphan, old);
      await storeFile(fresh, 60_000);
      await storeFile(otherOrphan, old);
      const stranger = path.join(audioDir, 'live', t.accountId, 'notes.txt');
      fs.writeFileSync(stranger, 'not audio');
      fs.utimesSync(stranger, agedAt, agedAt);

      expect(await purgeOrphanAudio(h.deps)).toBe(2);
      expect(filesUnder(audioDir)).toEqual([recorded, fresh, `live/${t.accountId}/notes.txt`].sort());
      const audio = await h.request('GET', `/v1/recordings/${uploaded.body.recording_id}/audio`, {
        key: t.liveKey,
      });
      expect(audio.status).toBe(200);

      // Again: nothing more to remove.
      expect(await purgeOrphanAudio(h.deps)).toBe(0);
    });

    it('has nothing to do before any audio is stored', async () => {
      const empty = tempDataDir();
      const storage = createLocalDirStorage(empty);
      expect(await purgeOrphanAudio({ db: h.deps.db, audio: storage })).toBe(0);
    });
  });
}
