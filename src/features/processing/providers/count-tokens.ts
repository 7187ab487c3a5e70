/**
 * Token counts for a model whose tokenizer Minutes does not have (any model an OpenAI-compatible server runs).
 * `estimateTokens` errs high, so a request planned with it fits the window of the usual tokenizers (Llama 2/3,
 * Mistral, Qwen, Gemma, OpenAI's); `minimumTokens` errs low, so a provider that reports fewer prompt tokens than
 * it has cut the prompt. Both are one pass over the characters, no regular expression.
 */

/** Upper estimate: letter runs of up to 4 ASCII (2 other alphabetic) characters, every digit and symbol. */
export function estimateTokens(text: string): number {
  let tokens = 0;
  let asciiRun = 0;
  let otherRun = 0;
  const endRuns = () => {
    tokens += Math.ceil(asciiRun / 4) + Math.ceil(otherRun / 2);
    asciiRun = 0;
    otherRun = 0;
  };
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) {
      asciiRun++;
      continue;
    }
    if (code >= 0x2e80) {
      // CJK and beyond: a tokenizer without the character spends its UTF-8 bytes; two is the usual worst.
      endRuns();
      tokens += 2;
      continue;
    }
    if (code >= 0xc0 && isLetter(ch)) {
      otherRun++;
      continue;
    }
    endRuns();
    // A space joins the next word's token; a newline, digit or symbol is a token of its own.
    if (code !== 32) tokens++;
  }
  endRuns();
  return Math.ceil(tokens * SAFETY);
}

/** Headroom over the estimate, for tokenizers that split words finer than four letters a token. */
const SAFETY = 1.1;

/**
 * Lower bound: every tokenizer spends at least one token per word between spaces (and per two CJK characters);
 * three quarters of that, for the rare token spanning a short word and its neighbour.
 */
export function minimumTokens(text: string): number {
  let words = 0;
  let cjk = 0;
  let inWord = false;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 0x2e80) {
      cjk++;
      inWord = false;
      continue;
    }
    const space = code === 32 || code === 9 || code === 10 || code === 13;
    if (!space && !inWord) words++;
    inWord = !space;
  }
  return Math.floor((words + cjk / 2) * 0.75);
}

function isLetter(ch: string): boolean {
  return ch.toLowerCase() !== ch.toUpperCase();
}
