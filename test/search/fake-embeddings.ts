import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeEmbeddings {
  /** The base URL (…/v1) to give EMBEDDER_BASE_URL. */
  url: string;
  /** How many embedding requests have come in. */
  requests(): number;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible embeddings endpoint on 127.0.0.1: each text becomes 8 numbers counting its words by
 * length, so texts with words alike land near each other. Each answer waits for `hold` when one is given.
 */
export async function startFakeEmbeddings(hold?: Promise<void>): Promise<FakeEmbeddings> {
  let requests = 0;
  const server = createServer(async (req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    await hold;
    const input = JSON.parse(Buffer.concat(chunks).toString()).input as string[];
    const data = input.map((text, index) => {
      const v = new Array(8).fill(0.01);
      for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) v[w.length % 8] += 1;
      return { index, embedding: v };
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
