/** Whether a text is a search query or a passage of a note (some models embed the two differently). */
export type EmbedKind = 'query' | 'passage';

/**
 * Turns texts into unit-length vectors whose dot product says how close their meanings are. Every
 * provider (builtin GloVe, local transformers model, OpenAI-compatible endpoint) implements this.
 */
export interface Embedder {
  /** Names the model and its settings; stored with the index, which is rebuilt when it changes. */
  readonly id: string;
  readonly dims: number;
  /**
   * One unit vector per text, in order. A text the model can make nothing of (no known word) gets the
   * zero vector, which matches nothing.
   */
  embed(texts: readonly string[], kind: EmbedKind): Promise<Float32Array[]>;
  /** Releases what the provider holds (model sessions, sockets). */
  close?(): Promise<void>;
}

/** A misconfigured or unavailable provider: the message tells the operator what to do. */
export class EmbedderError extends Error {
  override name = 'EmbedderError';
}

/** Scales a vector to unit length in place; the zero vector stays zero. */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!;
  return sum;
}

export function isZero(v: Float32Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false;
  return true;
}
