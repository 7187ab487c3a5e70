import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll } from 'vitest';

export interface ServedApp {
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `fetch` (an app's) on a free port of 127.0.0.1, for tests that need a real socket. close() also ends
 * idle keep-alive connections, so it does not wait for clients to hang up.
 */
export function serveApp(fetch: (request: Request) => Response | Promise<Response>): Promise<ServedApp> {
  return new Promise((resolve) => {
    const server = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => {
      resolve({
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            if ('closeAllConnections' in server) server.closeAllConnections();
          }),
      });
    });
  });
}

/**
 * serveApp for a describe block: served before its tests (after the hooks registered before this call), closed
 * after them. Returns the port.
 */
export function useServedApp(h: { app: { fetch: (request: Request) => Response | Promise<Response> } }) {
  let served: ServedApp | undefined;
  beforeAll(async () => {
    served = await serveApp(h.app.fetch);
  });
  afterAll(async () => {
    await served?.close();
  });
  return (): number => {
    if (!served) throw new Error('the app is served in beforeAll');
    return served.port;
  };
}
