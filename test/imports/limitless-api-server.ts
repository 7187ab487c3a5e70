import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for Limitless's `GET /v1/lifelogs` as its published document describes it: the key in
 * `X-API-Key` (401 otherwise), `limit` (at most 10), `cursor`, `direction`, and an answer
 * `{data: {lifelogs}, meta: {lifelogs: {nextCursor, count}}}`. `tooMany` requests are answered 429 first.
 */
export async function startLimitlessServer(options: {
  apiKey: string;
  lifelogs: unknown[];
  tooMany?: number;
}) {
  const requests: URL[] = [];
  let tooMany = options.tooMany ?? 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push(url);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (url.pathname !== '/v1/lifelogs') return send(404, { error: 'Not found' });
    if (req.headers['x-api-key'] !== options.apiKey) return send(401, { error: 'Invalid API key' });
    if (tooMany > 0) {
      tooMany -= 1;
      return send(429, { error: 'Too many requests' }, { 'retry-after': '0' });
    }
    const limit = Math.min(10, Number(url.searchParams.get('limit') ?? 3));
    const from = Number(url.searchParams.get('cursor') ?? 0);
    const page = options.lifelogs.slice(from, from + limit);
    const next = from + limit < options.lifelogs.length ? String(from + limit) : null;
    send(200, { data: { lifelogs: page }, meta: { lifelogs: { nextCursor: next, count: page.length } } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A lifelog in the API's shape: a title heading, a topic, and utterances of the wearer and another speaker. */
export function apiLifelog(i: number) {
  const start = Date.UTC(2025, 9, 1, 9) + i * 3_600_000;
  const at = (ms: number) => new Date(start + ms).toISOString();
  return {
    id: `ll_${String(i).padStart(4, '0')}`,
    title: `Standup ${i}`,
    markdown: null,
    startTime: at(0),
    endTime: at(9000),
    isStarred: false,
    updatedAt: at(9000),
    contents: [
      {
        type: 'heading1',
        content: `Standup ${i}`,
        children: [
          { type: 'heading2', content: 'Release blockers', children: [] },
          {
            type: 'blockquote',
            content: 'The migration is ready for review.',
            startTime: at(0),
            endTime: at(3000),
            startOffsetMs: 0,
            endOffsetMs: 3000,
            speakerName: 'You',
            speakerIdentifier: 'user',
            children: [],
          },
          {
            type: 'blockquote',
            content: 'I will review it this afternoon.',
            startTime: at(3500),
            endTime: at(9000),
            startOffsetMs: 3500,
            endOffsetMs: 9000,
            speakerName: 'Priya',
            speakerIdentifier: null,
            children: [],
          },
        ],
      },
    ],
  };
}
