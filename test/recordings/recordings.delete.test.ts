import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { wavFile } from './audio-fixtures.ts';
import { filesUnder, tempDataDir, upload } from './helpers.ts';

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const dataDir = tempDataDir();
    const h = useHarness(dialect, { DATA_DIR: dataDir });

    it('DELETE /v1/notes/:id removes the recording and, after the commit, its audio file', async () => {
      const t = await h.tenant();
      const kept = await upload(h, { key: t.liveKey, file: { bytes: wavFile(1), filename: 'kept.wav' } });
      const gone = await upload(h, { key: t.liveKey, file: { bytes: wavFile(1), filename: 'gone.wav' } });
      const audioDir = path.join(dataDir, 'audio', 'live', t.accountId);
      expect(filesUnder(audioDir)).toHaveLength(2);

      const res = await h.request('DELETE', `/v1/notes/${gone.body.note_id}`, { key: t.liveKey });
      expect(res.status).toBe(200);
      expect(
        (await h.request('GET', `/v1/recordings/${gone.body.recording_id}`, { key: t.liveKey })).status,
      ).toBe(404);
      expect(filesUnder(audioDir)).toEqual([`${kept.body.recording_id}.wav`]);
      const audio = await h.app.request(`/v1/recordings/${kept.body.recording_id}/audio`, {
        headers: { authorization: `Bearer ${t.liveKey}` },
      });
      expect(audio.status).toBe(200);
    });
  });
}
