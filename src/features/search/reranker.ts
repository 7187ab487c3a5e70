import type { RerankerSettings } from '../../config.ts';
import { sliceCodePoints } from '../../lib/text.ts';

export type { RerankerSettings };

/** A reranker that failed (network, status, malformed answer): the search falls back to its own ranking. */
export class RerankerError extends Error {
  override name = 'RerankerError';
}

interface RerankResponse {
  results?: { index?: unknown; relevance_score?: unknown }[];
}

/** Longest passage sent, in characters: chunks are a few hundred words; this only bounds a pathological one. */
const MAX_DOCUMENT_CHARS = 4_000;

/**
 * Any Cohere-compatible `POST {baseUrl}/rerank` (Cohere v2, Jina, Voyage, vLLM, llama.cpp server, Infinity,
 * LocalAI): a cross-encoder reads the query and each passage together and scores how well the passage answers
 * it. Returns one score per passage in [0, 1], in order: the endpoint's probabilities as they are, or its raw
 * logits (llama.cpp's server, Infinity) through the logistic function (RERANKER_SCORES=logit).
 */
export class CohereReranker {
  readonly id: string;
  constructor(private readonly settings: RerankerSettings) {
    this.id = `cohere:${settings.model}`;
  }

  get candidates(): number {
    return this.settings.candidates;
  }

  async score(query: string, passages: readonly string[]): Promise<number[]> {
    if (!passages.length) return [];
    const url = `${this.settings.baseUrl}/rerank`;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.settings.apiKey ? { authorization: `Bearer ${this.settings.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: this.settings.model,
          query,
          documents: passages.map((p) => sliceCodePoints(p, MAX_DOCUMENT_CHARS)),
          top_n: passages.length,
          return_documents: false,
        }),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (err) {
      throw new RerankerError(`${url} did not answer: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!res.ok) {
      const text = sliceCodePoints(await res.text().catch(() => ''), 300);
      throw new RerankerError(`${url} answered HTTP ${res.status}${text ? `: ${text}` : ''}`);
    }
    const scores = parseScores(await res.json().catch(() => null), passages.length, url);
    if (this.settings.scores === 'logit') return scores.map((s) => 1 / (1 + Math.exp(-s)));
    if (scores.some((s) => s < 0 || s > 1)) {
      throw new RerankerError(
        `${url} answered with scores outside [0, 1]: it returns logits, so set RERANKER_SCORES=logit.`,
      );
    }
    return scores;
  }
}

function parseScores(json: unknown, expected: number, url: string): number[] {
  const results = (json as RerankResponse | null)?.results;
  if (!Array.isArray(results)) throw new RerankerError(`${url} answered without a results array.`);
  const scores: (number | undefined)[] = new Array(expected).fill(undefined);
  for (const r of results) {
    const { index, relevance_score: score } = r ?? {};
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= expected) {
      throw new RerankerError(`${url} answered with a result index out of range.`);
    }
    if (typeof score !== 'number' || !Number.isFinite(score)) {
      throw new RerankerError(`${url} answered with a relevance_score that is not a number.`);
    }
    if (scores[index] !== undefined) throw new RerankerError(`${url} scored one passage twice.`);
    scores[index] = score;
  }
  if (scores.some((s) => s === undefined)) {
    throw new RerankerError(`${url} scored ${results.length} of ${expected} passages.`);
  }
  return scores as number[];
}
