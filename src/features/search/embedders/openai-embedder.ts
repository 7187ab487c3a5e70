import { sliceCodePoints } from '../../../lib/text.ts';
import { type Embedder, EmbedderError, type EmbedKind, normalize } from './embedder.ts';

export interface OpenAiEmbedderOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Asked of models that can shorten their vectors (text-embedding-3-*); otherwise the model's own width. */
  dimensions?: number;
  timeoutMs: number;
  /** Texts per request. */
  batchSize?: number;
  /** Tries per request for 429, 5xx and network errors. */
  attempts?: number;
  fetch?: typeof fetch;
}

interface EmbeddingsResponse {
  data?: { index?: number; embedding?: unknown }[];
}

/**
 * Any OpenAI-compatible `POST {baseUrl}/embeddings` (OpenAI, Azure-compatible proxies, Ollama, vLLM, LM Studio,
 * text-embeddings-inference). Batches texts, retries rate limits and server errors with backoff, validates
 * the response and normalises vectors to unit length. The width is learned from the first answer unless
 * configured.
 */
export class OpenAiEmbedder implements Embedder {
  readonly id: string;
  private width: number | undefined;
  private readonly options: Required<Omit<OpenAiEmbedderOptions, 'apiKey' | 'dimensions'>> &
    Pick<OpenAiEmbedderOptions, 'apiKey' | 'dimensions'>;

  constructor(options: OpenAiEmbedderOptions) {
    this.options = { batchSize: 64, attempts: 3, fetch: globalThis.fetch, ...options };
    this.id = `openai:${options.model}${options.dimensions ? `:${options.dimensions}` : ''}`;
    this.width = options.dimensions;
  }

  get dims(): number {
    if (this.width === undefined)
      throw new EmbedderError('The embedding width is not known before the first call.');
    return this.width;
  }

  /** Asks the endpoint once, so the width is known and a wrong URL, key or model shows at start. */
  async probe(): Promise<void> {
    await this.embed(['dimension probe'], 'query');
  }

  async embed(texts: readonly string[], _kind: EmbedKind = 'passage'): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.options.batchSize) {
      out.push(...(await this.request(texts.slice(i, i + this.options.batchSize))));
    }
    return out;
  }

  private async request(batch: readonly string[]): Promise<Float32Array[]> {
    // An empty string is refused by some servers; it embeds to nothing anyway.
    const input = batch.map((t) => (t.trim() ? t : ' '));
    const body = JSON.stringify({
      model: this.options.model,
      input,
      encoding_format: 'float',
      ...(this.options.dimensions ? { dimensions: this.options.dimensions } : {}),
    });
    let lastError = '';
    for (let attempt = 1; attempt <= this.options.attempts; attempt++) {
      let res: Response;
      try {
        res = await this.options.fetch(`${this.options.baseUrl}/embeddings`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
          },
          body,
          signal: AbortSignal.timeout(this.options.timeoutMs),
        });
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
        await sleep(backoffMs(attempt));
        continue;
      }
      if (res.ok) return this.parse(await res.json().catch(() => null), batch.length);
      const text = sliceCodePoints(await res.text().catch(() => ''), 300);
      lastError = `HTTP ${res.status}${text ? `: ${text}` : ''}`;
      if (res.status !== 429 && res.status < 500) break;
      const retryAfter = Number(res.headers.get('retry-after'));
      await sleep(
        Number.isFinite(retryAfter) && retryAfter > 0
          ? Math.min(10_000, retryAfter * 1000)
          : backoffMs(attempt),
      );
    }
    throw new EmbedderError(
      `The embeddings endpoint ${this.options.baseUrl}/embeddings failed (model ${this.options.model}): ${lastError}`,
    );
  }

  private parse(json: unknown, expected: number): Float32Array[] {
    const data = (json as EmbeddingsResponse | null)?.data;
    if (!Array.isArray(data) || data.length !== expected) {
      throw new EmbedderError(
        `The embeddings endpoint returned ${Array.isArray(data) ? data.length : 'no'} vectors for ${expected} texts.`,
      );
    }
    const vectors: Float32Array[] = new Array(expected);
    data.forEach((item, position) => {
      const index = typeof item.index === 'number' ? item.index : position;
      const embedding = item.embedding;
      if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new EmbedderError('The embeddings endpoint returned a vector that is not an array of numbers.');
      }
      if (index < 0 || index >= expected || vectors[index]) {
        throw new EmbedderError('The embeddings endpoint returned vectors with wrong indexes.');
      }
      vectors[index] = normalize(Float32Array.from(embedding as number[]));
    });
    const width = vectors[0]!.length;
    if (!width || vectors.some((v) => v.length !== width)) {
      throw new EmbedderError('The embeddings endpoint returned vectors of different widths.');
    }
    if (this.width === undefined) this.width = width;
    else if (width !== this.width) {
      throw new EmbedderError(
        `The embeddings endpoint returned ${width} dimensions where ${this.width} were expected.`,
      );
    }
    return vectors;
  }
}

const backoffMs = (attempt: number) => 250 * 2 ** (attempt - 1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
