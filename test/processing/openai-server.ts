import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';

/**
 * A real HTTP server on 127.0.0.1 speaking the two OpenAI endpoints the pipeline calls:
 * `POST /v1/audio/transcriptions` (multipart, parsed as a provider would) and `POST /v1/chat/completions`
 * (JSON). Tests script its answers and read back exactly what was sent.
 */

export interface TranscriptionRequest {
  authorization?: string;
  fields: Record<string, string[]>;
  file?: { filename: string; mimeType: string; size: number; sha256: string };
}

export interface ChatRequest {
  authorization?: string;
  body: any;
}

export interface Reply {
  status?: number;
  /** A JSON value (serialised) or raw text. */
  json?: unknown;
  text?: string;
  /** Never answer: the connection stays open until the server closes (a provider that hangs). */
  hang?: boolean;
}

export interface OpenAiServer {
  /** Base URL to configure, ending in /v1. */
  baseUrl: string;
  transcriptions: TranscriptionRequest[];
  chats: ChatRequest[];
  onTranscription(reply: (req: TranscriptionRequest, index: number) => Reply): void;
  onChat(reply: (req: ChatRequest, index: number) => Reply): void;
  /** Resolves once `count` transcription requests have arrived (their bodies fully read). */
  waitForTranscriptions(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A verbose_json answer from `[speaker?, startSeconds, endSeconds, text]` rows. */
export function verboseJson(rows: [string | undefined, number, number, string][]) {
  return {
    task: 'transcribe',
    language: 'english',
    duration: rows.at(-1)?.[2] ?? 0,
    text: rows.map((r) => r[3]).join(' '),
    segments: rows.map(([speaker, start, end, text], id) => ({
      id,
      seek: 0,
      start,
      end,
      text: ` ${text}`,
      tokens: [],
      temperature: 0,
      avg_logprob: -0.2,
      compression_ratio: 1.2,
      no_speech_prob: 0.01,
      ...(speaker ? { speaker } : {}),
    })),
  };
}

/**
 * A chat completion whose message content is `content` (a JSON string for json_schema answers). Without
 * `promptTokens`, the server fills in `usage` as a provider would: the tokens of the whole prompt it read
 * (`countPromptTokens`).
 */
export function chatCompletion(content: string, finishReason = 'stop', promptTokens?: number) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_790_000_000,
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
    ...(promptTokens !== undefined
      ? { usage: { prompt_tokens: promptTokens, completion_tokens: 1, total_tokens: promptTokens + 1 } }
      : {}),
  };
}

/**
 * The prompt tokens of a chat request as a Llama-style tokenizer counts them, near enough for a fake: about
 * 1.3 tokens a word, a token per digit, plus a few per message.
 */
export function countPromptTokens(body: any): number {
  let tokens = 0;
  for (const m of body?.messages ?? []) {
    const text = String(m.content ?? '');
    const words = text.split(/\s+/).filter(Boolean).length;
    const digits = text.replace(/[^0-9]/g, '').length;
    tokens += Math.ceil(words * 1.3) + Math.ceil(digits / 2) + 4;
  }
  return tokens;
}

export async function startOpenAiServer(): Promise<OpenAiServer> {
  let transcriptionReply: (req: TranscriptionRequest, index: number) => Reply = () => ({
    status: 500,
    json: { error: { message: 'no transcription reply scripted' } },
  });
  let chatReply: (req: ChatRequest, index: number) => Reply = () => ({
    status: 500,
    json: { error: { message: 'no chat reply scripted' } },
  });
  const transcriptions: TranscriptionRequest[] = [];
  const chats: ChatRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const open = new Set<http.ServerResponse>();

  const send = (res: http.ServerResponse, reply: Reply) => {
    if (reply.hang) {
      open.add(res);
      return;
    }
    const body = reply.text ?? JSON.stringify(reply.json ?? {});
    res.writeHead(reply.status ?? 200, {
      'content-type': reply.text !== undefined ? 'text/plain' : 'application/json',
    });
    res.end(body);
  };

  const server = http.createServer((req, res) => {
    const authorization = req.headers.authorization;
    if (req.method === 'POST' && req.url === '/v1/audio/transcriptions') {
      const record: TranscriptionRequest = { ...(authorization ? { authorization } : {}), fields: {} };
      const parser = busboy({ headers: req.headers });
      const files: Promise<void>[] = [];
      parser.on('field', (name, value) => {
        const list = record.fields[name] ?? [];
        list.push(value);
        record.fields[name] = list;
      });
      parser.on('file', (_name, stream, info) => {
        const hash = createHash('sha256');
        let size = 0;
        files.push(
          new Promise((resolve) => {
            stream.on('data', (chunk: Buffer) => {
              hash.update(chunk);
              size += chunk.length;
            });
            stream.on('end', () => {
              record.file = {
                filename: info.filename ?? '',
                mimeType: info.mimeType,
                size,
                sha256: hash.digest('hex'),
              };
              resolve();
            });
          }),
        );
      });
      parser.on('close', () => {
        void Promise.all(files).then(() => {
          const index = transcriptions.push(record) - 1;
          for (const w of waiters.filter((w) => transcriptions.length >= w.count)) w.resolve();
          send(res, transcriptionReply(record, index));
        });
      });
      req.pipe(parser);
      return;
    }
    if (req.method === 'POST' && req.url === '/v1/chat/completions') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const record: ChatRequest = {
          ...(authorization ? { authorization } : {}),
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        };
        const index = chats.push(record) - 1;
        const reply = chatReply(record, index);
        const json = reply.json as { choices?: unknown; usage?: unknown } | undefined;
        if (json && typeof json === 'object' && json.choices && !json.usage) {
          const prompt = countPromptTokens(record.body);
          reply.json = {
            ...json,
            usage: { prompt_tokens: prompt, completion_tokens: 1, total_tokens: prompt + 1 },
          };
        }
        send(res, reply);
      });
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    transcriptions,
    chats,
    onTranscription: (reply) => {
      transcriptionReply = reply;
    },
    onChat: (reply) => {
      chatReply = reply;
    },
    waitForTranscriptions: (count, timeoutMs = 20_000) =>
      new Promise<void>((resolve, reject) => {
        if (transcriptions.length >= count) return resolve();
        const timer = setTimeout(
          () => reject(new Error(`only ${transcriptions.length} of ${count} transcription requests arrived`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      }),
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
