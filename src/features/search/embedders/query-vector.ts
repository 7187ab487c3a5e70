import type { Embedder } from './embedder.ts';

/** Recent queries remembered per embedder: a page of results, Ask's search and its passage scores share one. */
const REMEMBERED = 256;

/**
 * Query vectors remembered for their recent uses (a search, the next page, Ask locating passages after its
 * search): a query costs a model run in the sentence model's thread, the largest part of a search. One per Search,
 * emptied by its close().
 */
export class QueryVectors {
  private byEmbedder = new WeakMap<Embedder, Map<string, Promise<Float32Array | undefined>>>();

  /** The query's vector from `embedder`, embedded once; callers must not modify it. A failure is not remembered. */
  of(embedder: Embedder, text: string): Promise<Float32Array | undefined> {
    let recent = this.byEmbedder.get(embedder);
    if (!recent) {
      recent = new Map();
      this.byEmbedder.set(embedder, recent);
    }
    const known = recent.get(text);
    if (known) {
      // Most recently used last, so the oldest is the first key.
      recent.delete(text);
      recent.set(text, known);
      return known;
    }
    const pending = embedder.embed([text], 'query').then(([vector]) => vector);
    recent.set(text, pending);
    if (recent.size > REMEMBERED) recent.delete(recent.keys().next().value as string);
    const remembered = recent;
    pending.catch(() => {
      if (remembered.get(text) === pending) remembered.delete(text);
    });
    return pending;
  }

  /** Forgets every remembered query (close, and benchmarks that time each search's own model run). */
  forget(): void {
    this.byEmbedder = new WeakMap();
  }
}
