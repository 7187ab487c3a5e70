import type { ExportFile } from './read-export.ts';

export const LIMITLESS_API_URL = 'https://api.limitless.ai';

export interface LimitlessApiOptions {
  apiKey: string;
  /** The API's origin (a local server in tests). */
  baseUrl?: string;
  /** Attempts of one page before giving up on a 429 or a 5xx. */
  attempts?: number;
  /** Longest wait a 429's Retry-After is followed for. */
  maxWaitMs?: number;
}

/** Limitless allows at most this many lifelogs per page. */
const PAGE_SIZE = 10;

/**
 * Every lifelog of a Limitless account through its API (`GET /v1/lifelogs`, key in `X-API-Key`), oldest first,
 * page by page with the cursor the API returns, each lifelog as one JSON file for the importer. A 429 is waited
 * out (its Retry-After, bounded) and a 5xx retried; a refused key or an answer that is not the documented shape
 * ends the walk with one error naming the page.
 */
export async function* fetchLimitlessLifelogs(options: LimitlessApiOptions): AsyncGenerator<ExportFile> {
  const base = options.baseUrl ?? LIMITLESS_API_URL;
  const attempts = options.attempts ?? 5;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const url = new URL('/v1/lifelogs', base);
    url.searchParams.set('direction', 'asc');
    url.searchParams.set('limit', String(PAGE_SIZE));
    url.searchParams.set('includeMarkdown', 'false');
    url.searchParams.set('includeHeadings', 'true');
    if (cursor) url.searchParams.set('cursor', cursor);
    const item = `Limitless API, page ${page}`;
    let body: unknown;
    try {
      body = await getJson(url, options.apiKey, attempts, maxWaitMs);
    } catch (err) {
      yield { name: item, error: (err as Error).message };
      return;
    }
    const data = (body as { data?: { lifelogs?: unknown } })?.data?.lifelogs;
    if (!Array.isArray(data)) {
      yield { name: item, error: 'the answer has no data.lifelogs list' };
      return;
    }
    for (const [i, lifelog] of data.entries()) {
      const id = (lifelog as { id?: unknown })?.id;
      yield {
        name: `lifelog ${typeof id === 'string' ? id : `${page}.${i}`}.json`,
        bytes: new TextEncoder().encode(JSON.stringify(lifelog)),
      };
    }
    const next = (body as { meta?: { lifelogs?: { nextCursor?: unknown } } })?.meta?.lifelogs?.nextCursor;
    if (typeof next !== 'string' || !next || !data.length) return;
    cursor = next;
  }
}

class LimitlessApiError extends Error {}

async function getJson(url: URL, apiKey: string, attempts: number, maxWaitMs: number): Promise<unknown> {
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(url, { headers: { 'X-API-Key': apiKey, accept: 'application/json' } });
    } catch (err) {
      if (attempt >= attempts)
        throw new LimitlessApiError(`the Limitless API could not be reached (${(err as Error).message})`);
      await sleep(backoffMs(attempt));
      continue;
    }
    if (res.ok) {
      try {
        return await res.json();
      } catch {
        throw new LimitlessApiError('the Limitless API answered with something that is not JSON');
      }
    }
    await res.body?.cancel();
    if (res.status === 401 || res.status === 403) {
      throw new LimitlessApiError(`the Limitless API refused the key (HTTP ${res.status})`);
    }
    const retryable = res.status === 429 || res.status >= 500;
    if (!retryable || attempt >= attempts) {
      throw new LimitlessApiError(
        `the Limitless API answered HTTP ${res.status}${retryable ? ` after ${attempts} attempts` : ''}`,
      );
    }
    const header = res.headers.get('retry-after');
    const retryAfter = header === null || header.trim() === '' ? Number.NaN : Number(header);
    await sleep(
      Math.min(
        maxWaitMs,
        Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : backoffMs(attempt),
      ),
    );
  }
}

function backoffMs(attempt: number): number {
  return Math.min(30_000, 500 * 2 ** (attempt - 1));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
