import type { AnalyzedQuery } from './query.ts';
import { isStopword, words } from './text/tokens.ts';

/**
 * The query's phrases: each pair of consecutive content words ("disk space", "tax return"), stemmed. A passage
 * that holds them side by side talks about what the query names; one that holds the words apart may not.
 */
export function queryPairs(query: AnalyzedQuery): string[] {
  const content = query.stems.filter((_, i) => query.content[i]);
  return content.slice(1).map((s, i) => `${content[i]} ${s}`);
}

/**
 * Share (0..1) of `pairs` found as neighbours in `text`, function words between them skipped ("the budget
 * of the project" holds "budget project"). `stemOf` folds a word as the keyword index does (cached by caller).
 */
export function phraseShare(
  pairs: readonly string[],
  text: string,
  stemOf: (word: string) => string,
): number {
  if (!pairs.length) return 0;
  const wanted = new Set(pairs);
  const found = new Set<string>();
  let previous: string | undefined;
  for (const word of words(text)) {
    if (isStopword(word)) continue;
    const s = stemOf(word);
    if (previous !== undefined) {
      const pair = `${previous} ${s}`;
      if (wanted.has(pair)) found.add(pair);
    }
    previous = s;
  }
  return found.size / wanted.size;
}
