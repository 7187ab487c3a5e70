import type { Embedder } from './embedder.ts';

/** Recent queries remembered per embedder: a page of results, Ask's search and its passage scores share one. */
const REMEMBERED = 256;

const byEmbedder = new WeakMap<Embedder, Map<string, Promise<Float32Array | undefined>>>();

/**
 * The query's vector from `embedder`, embedded once for the recent uses of the same text (a search, the next page,
 * Ask locating passages after its search): a query costs a model run in the sentence model's thread, the largest
 * part of a search. Callers must not modify the vector. A failure is not remembered.
 */
export function queryVector(embedder: Embedder, text: string): Promise<Float32Array | undefined> {
  let recent = byEmbedder.get(embedder);
  if (!recent) {
    recent = new Map();
    byEmbedder.set(embedder, recent);
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
  pending.catch(() => {
    if (recent.get(text) === pending) recent.delete(text);
  });
  return pending;
}

/** Forgets the queries remembered for `embedder`, so a benchmark times each search's own model run. */
export function forgetQueryVectors(embedder: Embedder): void {
  byEmbedder.delete(embedder);
}
