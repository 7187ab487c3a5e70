import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The baseline of the API benchmark: a bare node:http server that answers each recorded URL with the exact
 * status, content type and body bytes the real server gave, and does nothing else.
 * Usage: node --import tsx bench/api/bare-server.ts <fixtures.json>; prints `listening <port>`.
 */
interface Fixture {
  status: number;
  contentType: string;
  bodyBase64: string;
}

const file = process.argv[2];
if (!file) throw new Error('usage: bare-server.ts <fixtures.json>');
const fixtures = new Map(
  Object.entries(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Fixture>).map(([url, f]) => [
    url,
    { status: f.status, body: Buffer.from(f.bodyBase64, 'base64'), contentType: f.contentType },
  ]),
);

const server = http.createServer((req, res) => {
  const fixture = fixtures.get(req.url ?? '');
  if (!fixture) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(fixture.status, {
    'content-type': fixture.contentType,
    'content-length': fixture.body.length,
  });
  res.end(fixture.body);
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
