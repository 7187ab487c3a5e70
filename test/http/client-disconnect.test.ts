import http from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.ts';
import { useHarness } from '../helpers/harness.ts';
import { useServedApp } from '../helpers/serve.ts';

/** A client that sends half a body and hangs up is one info line in the log: no error, no stack trace. */
for (const dialect of DIALECTS) {
  describe(dialect, () => {
    const h = useHarness(dialect);
    const lines: Record<string, unknown>[] = [];
    beforeAll(async () => {
      const sink = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
          callback();
        },
      });
      h.deps.logger = pino({ level: 'info' }, sink);
    });
    const port = useServedApp(h);

    it('logs a JSON body cut off by the client as one info line', async () => {
      const t = await h.tenant();
      await new Promise<void>((resolve) => {
        const req = http.request({
          host: '127.0.0.1',
          port: port(),
          method: 'POST',
          path: '/v1/notes',
          agent: false,
          headers: {
            authorization: `Bearer ${t.liveKey}`,
            'content-type': 'application/json',
            'content-length': '100000',
          },
        });
        req.on('error', () => resolve());
        req.on('close', () => resolve());
        req.write('{"transcript": "A: hello');
        setTimeout(() => req.destroy(), 200);
      });
      // Wait for the server to notice and log, rather than for a fixed time.
      for (let i = 0; i < 200 && !lines.some((l) => l.path === '/v1/notes'); i++) {
        await new Promise((r) => setTimeout(r, 25));
      }
      const mine = lines.filter(
        (l) => l.path === '/v1/notes' || l.err !== undefined || Number(l.level) >= 40,
      );
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ level: 30, msg: 'client disconnected', method: 'POST' });
      expect(JSON.stringify(lines)).not.toMatch(/\n\s+at\s|"stack"/);
      const health = await fetch(`http://127.0.0.1:${port()}/healthz`);
      expect(health.status).toBe(200);
    });
  });
}
