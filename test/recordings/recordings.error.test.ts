import http from 'node:http';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { accountRowIds } from '../helpers/account-rows.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { type Harness, type Tenant, useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { useServedApp } from '../helpers/serve.ts';
import { insertHeldKey } from '../idempotency/held-key.ts';
import { wavFile } from './audio-fixtures.ts';
import { eventsOf, filesUnder, tempDataDir, upload, uploadRaw } from './helpers.ts';

const LIMIT = 64 * 1024;

/** Nothing of a refused upload remains: no recording or note row, no event, no audio file, no temp file. */
async function expectNothingStored(h: Harness, t: Tenant, dataDir: string) {
  expect(await accountRowIds(h.db.db, 'recordings', t.accountId)).toEqual([]);
  expect(await accountRowIds(h.db.db, 'notes', t.accountId)).toEqual([]);
  expect(await eventsOf(h, t.accountId)).toEqual([]);
  expect(filesUnder(path.join(dataDir, 'audio', 'live', t.accountId))).toEqual([]);
  expect(filesUnder(path.join(dataDir, 'tmp'))).toEqual([]);
}

/** A multipart body by hand: parts of [name, value] or [name, bytes, filename]. */
function multipart(
  boundary: string,
  parts: ([string, string] | [string, Buffer, string])[],
  close = true,
): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if (part.length === 2) {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part[0]}"\r\n\r\n${part[1]}\r\n`,
        ),
      );
    } else {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part[0]}"; filename="${part[2]}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
        part[1],
        Buffer.from('\r\n'),
      );
    }
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const dataDir = tempDataDir();
    const h = useHarness(dialect, { DATA_DIR: dataDir, MAX_UPLOAD_BYTES: String(LIMIT) });

    describe('415 unsupported_media_type', () => {
      it('for a body that is neither multipart nor JSON, naming both', async () => {
        const t = await h.tenant();
        const res = await uploadRaw(h, t.liveKey, wavFile(1), 'audio/wav');
        expectApiError(res, 415, 'unsupported_media_type');
        expect(res.body.error.message).toMatch(/multipart\/form-data.*application\/json/);
        await expectNothingStored(h, t, dataDir);
      });

      it.each([
        ['a text file', Buffer.from('Alice: this is a transcript, not audio.\n')],
        [
          'a PNG image',
          Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64)]),
        ],
        [
          'AAC in ADTS (not a listed format)',
          Buffer.concat([Buffer.from([0xff, 0xf1, 0x50, 0x80]), Buffer.alloc(64)]),
        ],
      ])('for %s sent as the file, and nothing is stored', async (_, bytes) => {
        const t = await h.tenant();
        const res = await upload(h, {
          key: t.liveKey,
          file: { bytes, filename: 'x.wav', type: 'audio/wav' },
        });
        expectApiError(res, 415, 'unsupported_media_type');
        expect(res.body.error.param).toBe('file');
        expect(res.body.error.message).toMatch(/wav, mp3, m4a, ogg\/opus, webm or flac/);
        await expectNothingStored(h, t, dataDir);
      });
    });

    describe('400', () => {
      it('for corrupt audio (a WAV cut inside its header), saying so, and nothing is stored', async () => {
        const t = await h.tenant();
        const res = await upload(h, { key: t.liveKey, file: { bytes: wavFile(1).subarray(0, 30) } });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error).toMatchObject({ param: 'file' });
        expect(res.body.error.message).toMatch(/looks like WAV but could not be read as audio/);
        await expectNothingStored(h, t, dataDir);
      });

      it('for an empty file', async () => {
        const t = await h.tenant();
        const res = await upload(h, { key: t.liveKey, file: { bytes: new Uint8Array(0) } });
        expectApiError(res, 400, 'parameter_invalid');
        expect(res.body.error.message).toMatch(/empty/);
        await expectNothingStored(h, t, dataDir);
      });

      it('parameter_missing when there is no file part', async () => {
        const t = await h.tenant();
        const res = await upload(h, { key: t.liveKey, fields: [['title', 'No audio']] });
        expectApiError(res, 400, 'parameter_missing');
        expect(res.body.error.param).toBe('file');
      });

      it('parameter_unknown for a field the endpoint does not know, and for a file in another field', async () => {
        const t = await h.tenant();
        const typo = await upload(h, {
          key: t.liveKey,
          file: { bytes: wavFile(1) },
          fields: [['titel', 'x']],
        });
        expectApiError(typo, 400, 'parameter_unknown');
        expect(typo.body.error.param).toBe('titel');
        const boundary = 'b0undary';
        const misplaced = await uploadRaw(
          h,
          t.liveKey,
          multipart(boundary, [['audio', wavFile(1), 'a.wav']]),
          `multipart/form-data; boundary=${boundary}`,
        );
        expectApiError(misplaced, 400, 'parameter_unknown');
        expect(misplaced.body.error.param).toBe('audio');
        await expectNothingStored(h, t, dataDir);
      });

      it.each([
        ['title', [['title', '   ']], 'title'],
        ['title with a control character', [['title', 'a\u0007b']], 'title'],
        ['created_at without a time zone', [['created_at', '2026-11-23T10:00:00']], 'created_at'],
        ['created_at that is no date', [['created_at', 'yesterday']], 'created_at'],
        ['too many tags', Array.from({ length: 26 }, (_, i) => ['tags', `t${i}`]), 'tags'],
        ['tags that are not a JSON array', [['tags', '[1, 2']], 'tags'],
        [
          'a repeated title',
          [
            ['title', 'a'],
            ['title', 'b'],
          ],
          'title',
        ],
      ] as [string, [string, string][], string][])('parameter_invalid for %s', async (_, fields, param) => {
        const t = await h.tenant();
        const res = await upload(h, { key: t.liveKey, file: { bytes: wavFile(1) }, fields });
        expectApiError(res, 400);
        expect(res.body.error.param).toBe(param);
        await expectNothingStored(h, t, dataDir);
      });

      it('for two files, a truncated body, or no boundary', async () => {
        const t = await h.tenant();
        const boundary = 'XyZ123';
        const type = `multipart/form-data; boundary=${boundary}`;
        const two = await uploadRaw(
          h,
          t.liveKey,
          multipart(boundary, [
            ['file', wavFile(1), 'a.wav'],
            ['file', wavFile(1), 'b.wav'],
          ]),
          type,
        );
        expectApiError(two, 400, 'parameter_invalid');
        expect(two.body.error.message).toMatch(/exactly one file/);
        const truncated = await uploadRaw(
          h,
          t.liveKey,
          multipart(boundary, [['file', wavFile(1), 'a.wav']], false),
          type,
        );
        expectApiError(truncated, 400, 'parameter_invalid');
        expect(truncated.body.error.message).toMatch(/multipart\/form-data body could not be read/);
        const noBoundary = await uploadRaw(h, t.liveKey, 'x', 'multipart/form-data');
        expectApiError(noBoundary, 400, 'parameter_invalid');
        await expectNothingStored(h, t, dataDir);
      });

      it('for a JSON body that is not a valid transcript, as for POST /v1/notes', async () => {
        const t = await h.tenant();
        const both = await h.request('POST', '/v1/recordings', {
          key: t.liveKey,
          body: { transcript: 'A: hi', segments: [{ speaker: 'A', start_ms: 0, end_ms: 1, text: 'hi' }] },
        });
        expectApiError(both, 400, 'parameter_invalid');
        const empty = await h.request('POST', '/v1/recordings', { key: t.liveKey, body: {} });
        expectApiError(empty, 400);
        const backwards = await h.request('POST', '/v1/recordings', {
          key: t.liveKey,
          body: { segments: [{ speaker: 'A', start_ms: 5, end_ms: 1, text: 'hi' }] },
        });
        expectApiError(backwards, 400, 'parameter_invalid');
        expect(backwards.body.error.param).toBe('segments.0.end_ms');
        await expectNothingStored(h, t, dataDir);
      });
    });

    describe('413 payload_too_large', () => {
      const port = useServedApp(h);

      /**
       * Streams a multipart upload of `fileBytes` over a fresh connection (no keep-alive: the server closes a
       * connection whose body it refused) and stops writing once the server answers.
       */
      function send(key: string, fileBytes: number, chunked: boolean) {
        const boundary = 'limitboundary';
        const head = Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.wav"\r\n\r\n`,
        );
        const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
        const wav = wavFile(fileBytes / 32_000);
        return new Promise<{ status: number; text: string }>((resolve, reject) => {
          const headers: http.OutgoingHttpHeaders = {
            authorization: `Bearer ${key}`,
            'content-type': `multipart/form-data; boundary=${boundary}`,
          };
          if (!chunked) headers['content-length'] = String(head.length + wav.length + tail.length);
          let answered = false;
          const req = http.request(
            {
              host: '127.0.0.1',
              port: port(),
              method: 'POST',
              path: '/v1/recordings',
              headers,
              agent: false,
            },
            (res) => {
              answered = true;
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (d: string) => {
                text += d;
              });
              res.on('end', () => {
                req.destroy();
                resolve({ status: res.statusCode ?? 0, text });
              });
            },
          );
          req.on('error', (err) => {
            if (!answered) reject(err);
          });
          req.write(head);
          if (!chunked) {
            // The size is announced: the answer must come from the headers alone, without the body.
            req.flushHeaders();
            return;
          }
          let offset = 0;
          const pump = () => {
            while (!answered && offset < wav.length) {
              const chunk = wav.subarray(offset, offset + 8192);
              offset += chunk.length;
              if (!req.write(chunk)) {
                req.once('drain', pump);
                return;
              }
            }
            if (!answered) req.end(tail);
          };
          pump();
        });
      }

      it('as soon as a streamed (chunked) file passes MAX_UPLOAD_BYTES, and nothing is half-stored', async () => {
        const t = await h.tenant();
        const res = await send(t.liveKey, LIMIT * 4, true);
        expect(res.status).toBe(413);
        const body = JSON.parse(res.text);
        expect(body.error).toMatchObject({ code: 'payload_too_large', param: 'file' });
        expect(body.error.message).toContain(String(LIMIT));
        await expectNothingStored(h, t, dataDir);
      });

      it('before reading when Content-Length announces too much', async () => {
        const t = await h.tenant();
        const res = await send(t.liveKey, LIMIT * 40, false);
        expect(res.status).toBe(413);
        await expectNothingStored(h, t, dataDir);
      });

      it('in-process too, while a file of exactly the limit is accepted', async () => {
        const t = await h.tenant();
        const over = wavFile((LIMIT - 44 + 2) / 32_000);
        expect(over.length).toBe(LIMIT + 2);
        expectApiError(await upload(h, { key: t.liveKey, file: { bytes: over } }), 413, 'payload_too_large');
        await expectNothingStored(h, t, dataDir);
        const exact = wavFile((LIMIT - 44) / 32_000);
        expect(exact.length).toBe(LIMIT);
        expect((await upload(h, { key: t.liveKey, file: { bytes: exact } })).status).toBe(202);
      });
    });

    describe('404 resource_not_found', () => {
      it('for an unknown id, another account’s recording, the other mode, or a malformed id', async () => {
        const owner = await h.tenant();
        const created = await upload(h, { key: owner.liveKey, file: { bytes: wavFile(1) } });
        const id = created.body.recording_id;
        const stranger = await h.tenant();
        for (const [key, rid] of [
          [owner.liveKey, 'rec_000000000000000000000000'],
          [stranger.liveKey, id],
          [owner.testKey, id],
          [owner.liveKey, 'not-an-id'],
        ]) {
          for (const suffix of ['', '/audio']) {
            const res = await h.request('GET', `/v1/recordings/${rid}${suffix}`, { key });
            expectApiError(res, 404, 'resource_not_found');
            expect(res.body.error.message).toBe(`No recording with id '${rid}' exists.`);
          }
        }
      });
    });

    describe('Idempotency-Key', () => {
      it('replays an upload with the same key and file, and stores it once', async () => {
        const t = await h.tenant();
        const bytes = wavFile(1);
        const send = () =>
          upload(h, {
            key: t.liveKey,
            file: { bytes, filename: 'a.wav' },
            fields: [['title', 'Once']],
            headers: { 'idempotency-key': 'upload-1' },
          });
        const first = await send();
        const second = await send();
        expect(first.status).toBe(202);
        expect(second.status).toBe(202);
        expect(second.body).toEqual(first.body);
        expect(second.headers.get('idempotent-replayed')).toBe('true');
        const list = await h.request('GET', '/v1/recordings', { key: t.liveKey });
        expect(list.body.meta.total).toBe(1);
        expect(filesUnder(path.join(dataDir, 'audio', 'live', t.accountId))).toHaveLength(1);
        expect(filesUnder(path.join(dataDir, 'tmp'))).toEqual([]);
      });

      it('422 for the same key with another file or other fields', async () => {
        const t = await h.tenant();
        const headers = { 'idempotency-key': 'upload-2' };
        expect((await upload(h, { key: t.liveKey, file: { bytes: wavFile(1) }, headers })).status).toBe(202);
        const otherFile = await upload(h, { key: t.liveKey, file: { bytes: wavFile(1.5) }, headers });
        expectApiError(otherFile, 422, 'idempotency_key_reused');
        const otherFields = await upload(h, {
          key: t.liveKey,
          file: { bytes: wavFile(1) },
          fields: [['title', 'Changed']],
          headers,
        });
        expectApiError(otherFields, 422, 'idempotency_key_reused');
        expect((await h.request('GET', '/v1/recordings', { key: t.liveKey })).body.meta.total).toBe(1);
        expect(filesUnder(path.join(dataDir, 'tmp'))).toEqual([]);
      });

      it('replays the JSON form too', async () => {
        const t = await h.tenant();
        const send = () =>
          h.request('POST', '/v1/recordings', {
            key: t.liveKey,
            body: { transcript: 'Ana: Ship it on Monday.' },
            headers: { 'idempotency-key': 'json-1' },
          });
        const first = await send();
        const second = await send();
        expect(second.body).toEqual(first.body);
        expect(second.headers.get('idempotent-replayed')).toBe('true');
        expect((await h.request('GET', '/v1/recordings', { key: t.liveKey })).body.meta.total).toBe(1);
      });

      if (dialect === 'postgres') {
        it('409 for a concurrent duplicate while the first upload is still being stored', async () => {
          const t = await h.tenant();
          // Hold the notes table so the first request stops inside its transaction, key claimed.
          const url = h.db.database.dialect === 'postgres' ? h.db.database.url : '';
          const blocker = new pg.Client({ connectionString: url });
          await blocker.connect();
          await blocker.query('BEGIN');
          await blocker.query('LOCK TABLE notes IN ACCESS EXCLUSIVE MODE');
          const headers = { 'idempotency-key': 'upload-concurrent' };
          const bytes = wavFile(1);
          const first = upload(h, { key: t.liveKey, file: { bytes }, headers });
          // Wait until the first request holds the key.
          for (let i = 0; i < 200; i++) {
            const row = await h.db.db
              .selectFrom('idempotency_keys')
              .select('response_status')
              .where('account_id', '=', t.accountId)
              .where('key', '=', 'upload-concurrent')
              .executeTakeFirst();
            if (row) break;
            await new Promise((r) => setTimeout(r, 25));
          }
          const second = await upload(h, { key: t.liveKey, file: { bytes }, headers });
          expectApiError(second, 409, 'idempotency_key_in_use');
          await blocker.query('ROLLBACK');
          await blocker.end();
          expect((await first).status).toBe(202);
          expect((await h.request('GET', '/v1/recordings', { key: t.liveKey })).body.meta.total).toBe(1);
        });
      } else {
        it('409 while another request holds the key', async () => {
          const t = await h.tenant();
          await insertHeldKey(h, t.accountId, 'upload-held', { requestHash: 'in-flight', since: new Date() });
          const res = await upload(h, {
            key: t.liveKey,
            file: { bytes: wavFile(1) },
            headers: { 'idempotency-key': 'upload-held' },
          });
          expectApiError(res, 409, 'idempotency_key_in_use');
          await expectNothingStored(h, t, dataDir);
        });
      }
    });
  });
}
