import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { useServedApp } from '../helpers/serve.ts';
import { wavHeader } from './audio-fixtures.ts';
import { filesUnder, tempDataDir } from './helpers.ts';

/** Large enough that holding it in memory would show: far above the memory growth allowed below. */
const AUDIO_BYTES = 192 * 1024 * 1024;
/** Half the file: buffering the upload would need all of it; streaming measured ≈ 40 MB (GC lag included). */
const ALLOWED_GROWTH = 96 * 1024 * 1024;

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const dataDir = tempDataDir();
    const h = useHarness(dialect, { DATA_DIR: dataDir });
    const port = useServedApp(h);

    it('streams a 192 MB upload to disk without holding it in memory', async () => {
      const t = await h.tenant();
      const boundary = 'streamboundary';
      const head = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="long.wav"\r\n\r\n`,
        ),
        wavHeader(AUDIO_BYTES - 44),
      ]);
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      // One chunk reused for the whole body: the sender holds 1 MB whatever the size.
      const chunk = Buffer.alloc(1024 * 1024);
      for (let i = 0; i < chunk.length; i += 2) chunk.writeInt16LE(Math.round(Math.sin(i / 20) * 4000), i);
      const hash = createHash('sha256').update(wavHeader(AUDIO_BYTES - 44));

      const baseline = process.memoryUsage();
      let peak = 0;
      const sample = setInterval(() => {
        const now = process.memoryUsage();
        peak = Math.max(peak, now.heapUsed + now.arrayBuffers - (baseline.heapUsed + baseline.arrayBuffers));
      }, 10);

      const res = await new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: port(),
            method: 'POST',
            path: '/v1/recordings',
            agent: false,
            headers: {
              authorization: `Bearer ${t.liveKey}`,
              'content-type': `multipart/form-data; boundary=${boundary}`,
            },
          },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (d: string) => {
              text += d;
            });
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
          },
        );
        req.on('error', reject);
        req.write(head);
        let left = AUDIO_BYTES - 44;
        const pump = () => {
          while (left > 0) {
            const part = chunk.subarray(0, Math.min(chunk.length, left));
            left -= part.length;
            hash.update(part);
            if (!req.write(part)) {
              req.once('drain', pump);
              return;
            }
          }
          req.end(tail);
        };
        pump();
      });
      clearInterval(sample);

      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(peak, `memory grew by ${(peak / 1048576).toFixed(0)} MB`).toBeLessThan(ALLOWED_GROWTH);
      const stored = filesUnder(path.join(dataDir, 'audio', 'live', t.accountId));
      expect(stored).toEqual([`${res.body.recording_id}.wav`]);
      const file = path.join(dataDir, 'audio', 'live', t.accountId, stored[0]!);
      expect(fs.statSync(file).size).toBe(AUDIO_BYTES);
      const onDisk = createHash('sha256');
      for await (const part of fs.createReadStream(file)) onDisk.update(part as Buffer);
      expect(onDisk.digest('hex')).toBe(hash.digest('hex'));
      const recording = await h.request('GET', `/v1/recordings/${res.body.recording_id}`, { key: t.liveKey });
      expect(recording.body).toMatchObject({
        size_bytes: AUDIO_BYTES,
        duration_seconds: Math.round((AUDIO_BYTES - 44) / 32_000),
      });
      fs.rmSync(file);
    }, 120_000);
  });
}
