import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/dialects.ts';
import {
  BIN,
  expectNoStack,
  logLine,
  ROOT,
  runCli,
  type ServerProcess,
  STOP_HANG_MS,
  spawnServer,
  spawnService,
} from './cli-process.ts';

/**
 * How long background work (search preparation, a note's processing, a delivery) may take before a wait counts
 * as stuck: a hang detector with room for a machine whose cores are all taken, not an expectation of speed.
 */
const BACKGROUND_WAIT_MS = 180_000;

const KEY_LINE = /(live|test) key: (svc_sk_(?:live|test)_[0-9A-Za-z]{32})/g;

function printedKeys(stdout: string): Record<string, string> {
  return Object.fromEntries([...stdout.matchAll(KEY_LINE)].map((m) => [m[1]!, m[2]!]));
}

/**
 * GET, retried on a connection reset: while the first start builds the embedder cache the server's event loop
 * can stall past its keep-alive timeout, and the timer then closes the idle socket the client is reusing
 * (ECONNRESET on a busy machine). A GET is safe to send again; any answer is returned as it is.
 */
async function get(server: ServerProcess, path: string, key?: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(server.url + path, key ? { headers: { authorization: `Bearer ${key}` } } : {});
      return { status: res.status, body: (await res.json()) as any };
    } catch (err) {
      if (attempt >= 3 || (err as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw err;
    }
  }
}

for (const dialect of DIALECTS) {
  describe(`minutes serve (${dialect})`, () => {
    let dataDir: string;
    let pgDatabase: TestDatabase | undefined;
    let settings: Record<string, string>;
    const running: ServerProcess[] = [];
    const builds: string[] = [];

    beforeAll(async () => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-serve-'));
      settings = { DATA_DIR: dataDir };
      if (dialect === 'postgres') {
        // The server migrates itself; the fresh database is only created (and dropped) here.
        pgDatabase = await createTestDatabase('postgres');
        settings.DATABASE_URL = (pgDatabase.database as { url: string }).url;
      }
    });
    afterAll(async () => {
      for (const server of running) await server.stop();
      for (const dir of builds) fs.rmSync(dir, { recursive: true, force: true });
      await pgDatabase?.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    const start = async (nodeArgs: string[], extra: Record<string, string> = {}) => {
      const server = await spawnServer(nodeArgs, { ...settings, ...extra });
      running.push(server);
      return server;
    };

    let liveKey: string;

    it('a start that cannot bind its port fails with one line and creates no owner', async () => {
      const blocker = net.createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      const { port } = blocker.address() as net.AddressInfo;
      try {
        const res = await runCli(['serve'], { ...settings, HOST: '127.0.0.1', PORT: String(port) });
        expect(res.code).toBe(1);
        expect(res.stderr).toContain('EADDRINUSE');
        expect(expectNoStack(res.stderr)).toBe(true);
        expect(res.stdout).not.toMatch(/svc_sk_/);
      } finally {
        blocker.close();
      }
      // The keys were not lost: no account exists yet, so the next start still creates and prints them.
      const accounts = await runCli(['keys', 'list'], settings);
      expect(accounts.code).toBe(1);
      expect(accounts.stderr).toContain('no account yet');
    });

    it(
      'the first start (npm start) creates the owner and prints one live and one test key, once',
      async () => {
        // What `npm start` runs: the bundle scripts/build.js makes (here into a directory of this test's own).
        const outdir = path.join(ROOT, '.tmp', `serve-${dialect}-${process.pid}`);
        builds.push(outdir);
        execFileSync(process.execPath, ['scripts/build.js', outdir], { cwd: ROOT });
        const server = await start(['--enable-source-maps', path.join(outdir, 'main.js')]);
        try {
          // The banner is written right after the listening line: wait for it to come through the pipe.
          await waitFor(() => Object.keys(printedKeys(server.stdout())).length === 2, 30_000);
          const keys = printedKeys(server.stdout());
          expect(keys.live).toMatch(/^svc_sk_live_/);
          expect(keys.test).toMatch(/^svc_sk_test_/);
          expect([...server.stdout().matchAll(KEY_LINE)]).toHaveLength(2);
          // Printed in clear text only in the banner, never inside a JSON log line.
          for (const line of server
            .stdout()
            .split('\n')
            .filter((l) => l.startsWith('{'))) {
            expect(line).not.toContain(keys.live);
            expect(line).not.toContain(keys.test);
          }
          liveKey = keys.live!;

          // Search is prepared in the background: on SQLite this first start builds the builtin embedder's cache
          // (about 10 s), and the server answers meanwhile; /readyz is ready (the database answers) and says so.
          expect((await get(server, '/healthz')).status).toBe(200);
          if (dialect === 'sqlite') {
            const early = await get(server, '/readyz');
            expect(early).toMatchObject({ status: 200, body: { status: 'ok', search: 'preparing' } });
            // Logged before the work starts, but the line may still be in the pipe: wait for it.
            await waitFor(() => server.stdout().includes('building the sentence model'), 30_000);
          }
          let ready = await get(server, '/readyz');
          await waitFor(async () => {
            ready = await get(server, '/readyz');
            return ready.body.search !== 'preparing';
          }, BACKGROUND_WAIT_MS);
          // The first start built the sentence model's ONNX file under DATA_DIR/models (in the background).
          if (dialect === 'sqlite') expect(server.stdout()).toContain('building the sentence model');
          expect(ready.body).toMatchObject({
            status: 'ok',
            database: dialect,
            search: 'hybrid',
            // PostgreSQL here has no pgvector: vectors are compared exactly in the server process.
            search_vectors: dialect === 'sqlite' ? 'sqlite-vec' : 'exact',
          });
          if (dialect === 'sqlite') {
            // Listening came first, search (hybrid) seconds later. /readyz can say so before the log line has come
            // through the pipe: wait for the line, then compare the order of the two.
            await waitFor(
              () =>
                logLine(server.stdout(), 'search: hybrid keyword + vector (vector store: sqlite-vec)') !==
                undefined,
              30_000,
            );
            const messages = server
              .stdout()
              .split('\n')
              .filter((l) => l.startsWith('{'))
              .map((l) => (JSON.parse(l) as { msg: string }).msg);
            expect(messages.indexOf('minutes listening')).toBeGreaterThanOrEqual(0);
            expect(messages.indexOf('minutes listening')).toBeLessThan(
              messages.indexOf('search: hybrid keyword + vector (vector store: sqlite-vec)'),
            );
          }
          const live = await get(server, '/v1/notes', keys.live);
          expect(live.status).toBe(200);
          expect(live.body.meta.total).toBe(0);
          expect((await get(server, '/v1/notes', keys.test)).status).toBe(200);
          expect((await get(server, '/v1/notes')).status).toBe(401);

          // A note created over HTTP is processed by the in-process worker (woken on enqueue).
          const created = await fetch(`${server.url}/v1/notes`, {
            method: 'POST',
            headers: { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              transcript:
                'Alice: The budget for the launch was exceeded by ten percent.\n' +
                'Bob: I will send the revised plan to finance by Friday.',
            }),
          });
          expect(created.status).toBe(202);
          const note = (await created.json()) as { id: string; status: string };
          let status = note.status;
          await waitFor(async () => {
            status = (await get(server, `/v1/notes/${note.id}`, keys.live)).body.status;
            return status !== 'processing';
          }, BACKGROUND_WAIT_MS);
          expect(status).toBe('ready');
        } finally {
          // Stopped whatever happened above: a server left running would process the next test's notes.
          expect(await server.stop()).toBe(0);
        }
        // The builtin embedder's cache is built during this test (about 10 s on an idle core, far more on a busy one).
      },
      180_000 + 2 * BACKGROUND_WAIT_MS + STOP_HANG_MS,
    );

    it(
      'a later start (minutes serve) prints no keys, and the first keys still work',
      async () => {
        const server = await start([BIN, 'serve']);
        try {
          expect((await get(server, '/healthz')).status).toBe(200);
          expect((await get(server, '/v1/notes', liveKey)).status).toBe(200);
        } finally {
          // All output is in once the process has exited: no banner, no key.
          expect(await server.stop()).toBe(0);
        }
        expect(server.stdout()).not.toMatch(/svc_sk_/);
        expect(server.stdout()).not.toContain('first start');

        // The owner holds exactly the two first-start keys.
        const list = await runCli(['keys', 'list', '--json'], settings);
        expect(list.code).toBe(0);
        const keys = JSON.parse(list.stdout) as { mode: string }[];
        expect(keys.map((k) => k.mode).sort()).toEqual(['live', 'test']);
      },
      120_000 + BACKGROUND_WAIT_MS + STOP_HANG_MS,
    );

    it(
      'a stop under load is prompt: a request left hanging is cut after the drain, and the server exits 0',
      async () => {
        const server = await start([BIN, 'serve']);
        // A client that sends half a body and then nothing: only the drain's end closes its connection.
        const { port } = new URL(server.url);
        const stalled = net.connect(Number(port), '127.0.0.1');
        const cut = new Promise<void>((resolve) => stalled.on('close', () => resolve()));
        stalled.on('error', () => {});
        await new Promise<void>((resolve) => stalled.once('connect', () => resolve()));
        stalled.write(
          'POST /v1/notes HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
            `Authorization: Bearer ${liveKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n` +
            '{"transcript": "Erin: half a body',
        );
        // The server has read the headers (a second request on another connection is answered meanwhile).
        expect((await get(server, '/healthz')).status).toBe(200);
        // Resolves with the exit code; rejects with the last step logged when a step hung (see cli-process.ts).
        expect(await server.stop()).toBe(0);
        await cut;
        expect(logLine(server.stdout(), 'stopping: connections closed')).toBe(true);
        expect(logLine(server.stdout(), 'minutes stopped')).toBe(true);
      },
      120_000 + BACKGROUND_WAIT_MS + STOP_HANG_MS,
    );

    it(
      'serve --no-worker runs no jobs; a separate `minutes worker` processes them',
      async () => {
        const server = await start([BIN, 'serve', '--no-worker']);
        let worker: Awaited<ReturnType<typeof spawnService>> | undefined;
        try {
          expect(logLine(server.stdout(), 'minutes listening', (e) => e.worker)).toBe(false);
          const created = await fetch(`${server.url}/v1/notes`, {
            method: 'POST',
            headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ transcript: 'Carol: Nothing processes this note until a worker runs.' }),
          });
          expect(created.status).toBe(202);
          const { id } = (await created.json()) as { id: string };
          await new Promise((r) => setTimeout(r, 1500));
          expect((await get(server, `/v1/notes/${id}`, liveKey)).body.status).toBe('processing');

          worker = await spawnService(
            [BIN, 'worker'],
            settings,
            (out) => logLine(out, 'minutes worker started'),
            BACKGROUND_WAIT_MS,
          );
          let status = 'processing';
          await waitFor(async () => {
            status = (await get(server, `/v1/notes/${id}`, liveKey)).body.status;
            return status !== 'processing';
          }, BACKGROUND_WAIT_MS);
          expect(status).toBe('ready');
        } finally {
          expect(await worker?.stop()).toBe(worker ? 0 : undefined);
          expect(await server.stop()).toBe(0);
        }
      },
      120_000 + 2 * BACKGROUND_WAIT_MS + STOP_HANG_MS,
    );

    it(
      'serve runs webhook deliveries in-process: a note created over HTTP reaches a receiver',
      async () => {
        const received: { type: string; delivery: string | undefined }[] = [];
        const receiver = http.createServer((req, res) => {
          let body = '';
          req.on('data', (d: Buffer) => {
            body += d;
          });
          req.on('end', () => {
            received.push({
              type: (JSON.parse(body) as { type: string }).type,
              delivery: req.headers['x-svc-delivery'] as string | undefined,
            });
            res.writeHead(204).end();
          });
        });
        await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
        const { port } = receiver.address() as net.AddressInfo;
        const server = await start([BIN, 'serve'], { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
        try {
          const post = (path: string, body: unknown) =>
            fetch(server.url + path, {
              method: 'POST',
              headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
              body: JSON.stringify(body),
            });
          const hook = await post('/v1/webhooks', {
            url: `http://127.0.0.1:${port}/hook`,
            events: ['note.created', 'note.processed'],
          });
          expect(hook.status).toBe(201);
          expect((await post('/v1/notes', { transcript: 'Dana: Ship the beta on Monday.' })).status).toBe(
            202,
          );
          await waitFor(() => received.some((r) => r.type === 'note.processed'), BACKGROUND_WAIT_MS);
          expect(received.map((r) => r.type)).toEqual(['note.created', 'note.processed']);
          expect(received.every((r) => r.delivery?.startsWith('evt_'))).toBe(true);
        } finally {
          expect(await server.stop()).toBe(0);
          receiver.close();
        }
      },
      120_000 + BACKGROUND_WAIT_MS + STOP_HANG_MS,
    );

    it('an invalid setting stops the start with the message, not a stack', async () => {
      const res = await runCli(['serve'], { ...settings, PORT: '70000' });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('PORT');
      expect(expectNoStack(res.stderr)).toBe(true);
    });
  });
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
