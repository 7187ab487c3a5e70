import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { accountRowIds } from '../helpers/account-rows.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { useServedApp } from '../helpers/serve.ts';
import { wavFile } from './audio-fixtures.ts';
import { filesUnder, tempDataDir, upload } from './helpers.ts';

const BOUNDARY = 'streamsafety';

/** The head of a multipart body: a text field of `fieldBytes` followed by the head of a file part. */
function head(fieldBytes: number): Buffer {
  return Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="title"\r\n\r\n${'t'.repeat(fieldBytes)}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
}

/**
 * Every stream of an upload has an error handler from the moment it exists: a body the parser gives up on
 * while the temp file is still being created, or one the client cuts off, is a 4xx (or a closed connection),
 * never a crashed process, and no temp file is left.
 */
for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const dataDir = tempDataDir();
    const h = useHarness(dialect, { DATA_DIR: dataDir });
    const port = useServedApp(h);

    /** Sends `parts` over a fresh connection; `end: false` leaves the body cut off and closes the socket. */
    function send(key: string, parts: Buffer[], end: boolean) {
      return new Promise<{ status: number; text: string } | 'closed'>((resolve) => {
        const req = http.request({
          host: '127.0.0.1',
          port: port(),
          method: 'POST',
          path: '/v1/recordings',
          agent: false,
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
          },
        });
        let settled = false;
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            text += d;
          });
          res.on('end', () => {
            settled = true;
            req.destroy();
            resolve({ status: res.statusCode ?? 0, text });
          });
        });
        req.on('error', () => {
          if (!settled) resolve('closed');
        });
        for (const part of parts) req.write(part);
        if (end) req.end(`\r\n--${BOUNDARY}--\r\n`);
        else {
          // The client goes away mid-body.
          setTimeout(() => req.destroy(), 200);
        }
      });
    }

    async function healthy() {
      const res = await fetch(`http://127.0.0.1:${port()}/healthz`);
      expect(res.status).toBe(200);
    }

    /** Temp files are removed once the request is over; wait for that rather than for a fixed time. */
    async function noTempFiles() {
      const dir = path.join(dataDir, 'tmp');
      for (let i = 0; i < 100 && filesUnder(dir).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(filesUnder(dir)).toEqual([]);
    }

    it('a text field over 64 KiB before a 1 MB file part is a 400, and the server stays up', async () => {
      const t = await h.tenant();
      const res = await send(t.liveKey, [head(70 * 1024), Buffer.alloc(1024 * 1024, 7)], true);
      expect(res).not.toBe('closed');
      if (res === 'closed') return;
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text).error).toMatchObject({ code: 'parameter_invalid', param: 'title' });
      await healthy();
      await noTempFiles();
    });

    it('a multipart body cut off mid-file is a 400 (or a closed connection), and the server stays up', async () => {
      const t = await h.tenant();
      const res = await send(t.liveKey, [head(10), Buffer.alloc(256 * 1024, 7)], false);
      if (res !== 'closed') expect(res.status).toBeGreaterThanOrEqual(400);
      if (res !== 'closed') expect(res.status).toBeLessThan(500);
      await healthy();
      await noTempFiles();
      expect(await accountRowIds(h.db.db, 'notes', t.accountId)).toEqual([]);
    });

    it.skipIf(process.platform === 'win32')('a stored upload is 0600 in 0700 folders', async () => {
      const t = await h.tenant();
      const res = await upload(h, { key: t.liveKey, file: { bytes: wavFile(1), filename: 'private.wav' } });
      expect(res.status).toBe(202);
      const dir = path.join(dataDir, 'audio', 'live', t.accountId);
      const [file] = filesUnder(dir);
      expect((fs.statSync(path.join(dir, file!)).mode & 0o777).toString(8)).toBe('600');
      for (const d of [dir, path.dirname(dir), path.join(dataDir, 'audio'), path.join(dataDir, 'tmp')]) {
        expect((fs.statSync(d).mode & 0o777).toString(8), d).toBe('700');
      }
    });

    it('a multipart body that ends without its closing boundary is a 400', async () => {
      const t = await h.tenant();
      const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const body = Buffer.concat([head(10), Buffer.alloc(300 * 1024, 7)]);
        const req = http.request(
          {
            host: '127.0.0.1',
            port: port(),
            method: 'POST',
            path: '/v1/recordings',
            agent: false,
            headers: {
              authorization: `Bearer ${t.liveKey}`,
              'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
              'content-length': String(body.length),
            },
          },
          (r) => {
            let text = '';
            r.setEncoding('utf8');
            r.on('data', (d: string) => {
              text += d;
            });
            r.on('end', () => resolve({ status: r.statusCode ?? 0, text }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text).error.code).toBe('parameter_invalid');
      await healthy();
      await noTempFiles();
    });
  });
}
