/**
 * The benchmark's webhook receiver, in its own process so it never competes with the worker for the event
 * loop: answers 200 at once and records, per request, the latency since the event's `created_at`.
 * Controlled over IPC: `reset` clears the records, `stats` returns them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

let latencies: number[] = [];
let ids = new Set<string>();
let duplicates = 0;
let first = 0;
let last = 0;

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const now = Date.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; created_at: string };
    if (ids.has(body.id)) duplicates++;
    else ids.add(body.id);
    latencies.push(now - Date.parse(body.created_at));
    if (!first) first = now;
    last = now;
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
    res.end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'listening', port: (server.address() as AddressInfo).port });
});

process.on('message', (message: { type: string }) => {
  if (message.type === 'reset') {
    latencies = [];
    ids = new Set();
    duplicates = 0;
    first = 0;
    last = 0;
    process.send?.({ type: 'reset' });
  } else if (message.type === 'count') {
    process.send?.({ type: 'count', unique: ids.size });
  } else if (message.type === 'stats') {
    process.send?.({
      type: 'stats',
      count: latencies.length,
      unique: ids.size,
      duplicates,
      first,
      last,
      latencies,
    });
  } else if (message.type === 'close') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
