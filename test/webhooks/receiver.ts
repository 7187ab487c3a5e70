import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/** One request as the receiver saw it: raw body bytes (and as text), lower-cased headers, arrival time. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The body decoded as UTF-8. */
  body: string;
  /** The body's bytes exactly as received (what signatures are computed over). */
  raw: Buffer;
  receivedAt: number;
}

export interface Reply {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Answer after this many milliseconds. */
  delayMs?: number;
  /** Never answer (the connection stays open until the receiver closes). */
  hang?: boolean;
}

export type Responder = (request: ReceivedRequest, index: number) => Reply;

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Replaces how the receiver answers (200 "ok" by default). */
  respond(responder: Responder): void;
  /** Resolves once at least `count` requests arrived; rejects with what arrived after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that records every request: the webhook receiver of the tests. */
export async function startReceiver(
  responder: Responder = () => ({ status: 200, body: 'ok' }),
): Promise<Receiver> {
  let respond = responder;
  const requests: ReceivedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
        ),
        body: raw.toString('utf8'),
        raw,
        receivedAt: Date.now(),
      };
      const index = requests.push(received) - 1;
      for (const w of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const reply = respond(received, index);
      if (reply.hang) {
        hanging.add(res);
        return;
      }
      const send = () => {
        res.writeHead(reply.status ?? 200, reply.headers ?? { 'content-type': 'text/plain' });
        res.end(reply.body ?? '');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    respond: (r) => {
      respond = r;
    },
    waitFor(count, timeoutMs = 10_000) {
      if (requests.length >= count) return Promise.resolve(requests.slice());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `expected ${count} requests within ${timeoutMs} ms, got ${requests.length}: ${requests
                  .map((r) => r.headers['x-svc-event'])
                  .join(', ')}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(requests.slice());
          },
        });
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A receiver for a describe block (started before its tests, closed after), with unique paths per test and the
 * requests that reached one.
 */
export function useReceiver() {
  let current: Receiver | undefined;
  beforeAll(async () => {
    current = await startReceiver();
  });
  afterAll(async () => {
    await current?.close();
  });
  const receiver = (): Receiver => {
    if (!current) throw new Error('the receiver starts in beforeAll');
    return current;
  };
  return {
    receiver,
    pathOf: (name: string) => `/${name}-${Math.random().toString(36).slice(2)}`,
    requestsTo: (path: string) => receiver().requests.filter((r) => r.path === path),
  };
}
