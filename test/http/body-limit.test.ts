import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { useBeforeAll } from '../helpers/before-all.ts';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { expectApiError } from '../helpers/openapi-check.ts';
import { loadApiRoutes, sampleRequest } from '../helpers/routes.ts';
import { useServedApp } from '../helpers/serve.ts';

/**
 * Oversized bodies are refused with 413 payload_too_large whether the client announces the size
 * (Content-Length) or streams it (chunked, no length), over a real socket as clients send them.
 */
const { doc, routes } = await loadApiRoutes();
const jsonRoutes = routes.filter((r) => r.jsonBody);

/** Limits small enough that a few hundred KB exceed every route's body limit. */
const SMALL_LIMITS = { MAX_BODY_BYTES: '4096', MAX_TRANSCRIPT_BYTES: '1024' };
const OVERSIZED = 6 * 1024 * 1024;

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** Sends a body over a socket, chunked unless contentLength is set; stops writing once the server answers. */
function send(
  port: number,
  options: { method: string; path: string; key: string; size: number; chunked: boolean },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = {
      authorization: `Bearer ${options.key}`,
      'content-type': 'application/json',
    };
    if (!options.chunked) headers['content-length'] = String(options.size + 2);
    let answered = false;
    const req = http.request(
      { host: '127.0.0.1', port, method: options.method, path: options.path, headers },
      (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const pump = () => {
      if (sent === 0) {
        req.write('"');
      }
      while (!answered && sent < options.size) {
        const n = Math.min(chunk.length, options.size - sent);
        sent += n;
        if (!req.write(chunk.subarray(0, n))) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end('"');
    };
    pump();
  });
}

function toTestResponse(raw: RawResponse) {
  const headers = new Headers();
  for (const [k, v] of Object.entries(raw.headers)) if (typeof v === 'string') headers.set(k, v);
  return { status: raw.status, headers, text: raw.text, body: JSON.parse(raw.text) };
}

for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect, SMALL_LIMITS);
    const t = useBeforeAll(() => h.tenant());
    const port = useServedApp(h);

    describe.each(jsonRoutes.map((r) => [r.name, r] as const))('%s', (_, route) => {
      it('413 payload_too_large when Content-Length announces too much', async () => {
        const { path } = sampleRequest(route, doc);
        const res = toTestResponse(
          await send(port(), { method: route.method, path, key: t.liveKey, size: OVERSIZED, chunked: false }),
        );
        expectApiError(res, 413, 'payload_too_large');
      });

      it('413 payload_too_large for a chunked body without Content-Length', async () => {
        const { path } = sampleRequest(route, doc);
        const res = toTestResponse(
          await send(port(), { method: route.method, path, key: t.liveKey, size: OVERSIZED, chunked: true }),
        );
        expectApiError(res, 413, 'payload_too_large');
      });

      it('413 in-process too (Content-Length set by the client)', async () => {
        const { path } = sampleRequest(route, doc);
        const res = await h.request(route.method, path, {
          key: t.liveKey,
          raw: JSON.stringify({ padding: 'a'.repeat(OVERSIZED) }),
          headers: { 'content-type': 'application/json' },
        });
        expectApiError(res, 413, 'payload_too_large');
      });
    });

    it('a body within the limit still works after oversized ones on the same server', async () => {
      const created = await h.request('POST', '/v1/notes', {
        key: t.liveKey,
        body: { transcript: 'Alice: small enough.' },
      });
      expect(created.status).toBe(202);
      const res = await fetch(`http://127.0.0.1:${port()}/v1/notes/${created.body.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${t.liveKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Still fine' }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ title: 'Still fine' });
    });
  });
}
