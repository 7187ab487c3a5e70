import { stemmer } from 'stemmer';

/**
 * ROUGE-1, ROUGE-2 and ROUGE-L F1 as Google's `rouge-score` computes them with `use_stemmer=True`: lower case,
 * every run of characters other than a-z and 0-9 is a space, tokens longer than 3 characters are Porter-stemmed,
 * n-gram counts are clipped, ROUGE-L is the longest common subsequence of the whole texts (not `rougeLsum`).
 */
export interface RougeScores {
  rouge1: number;
  rouge2: number;
  rougeL: number;
}

export function rougeTokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .split(' ')
    .filter(Boolean)
    .map((t) => (t.length > 3 ? stemmer(t) : t));
}

function ngrams(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const key = tokens.slice(i, i + n).join(' ');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

function f1(overlap: number, predicted: number, target: number): number {
  const p = overlap / Math.max(predicted, 1);
  const r = overlap / Math.max(target, 1);
  return p + r > 0 ? (2 * p * r) / (p + r) : 0;
}

function rougeN(target: readonly string[], prediction: readonly string[], n: number): number {
  const t = ngrams(target, n);
  const p = ngrams(prediction, n);
  let overlap = 0;
  for (const [k, c] of p) overlap += Math.min(c, t.get(k) ?? 0);
  const count = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  return f1(overlap, count(p), count(t));
}

function lcsLength(a: readonly string[], b: readonly string[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++)
      row[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, row[j - 1]!);
    prev = row;
  }
  return prev[b.length]!;
}

export function rouge(target: string, prediction: string): RougeScores {
  const t = rougeTokens(target);
  const p = rougeTokens(prediction);
  return {
    rouge1: rougeN(t, p, 1),
    rouge2: rougeN(t, p, 2),
    rougeL: f1(lcsLength(t, p), p.length, t.length),
  };
}
