/**
 * A failure of an outside provider (transcription, analysis). `message` is meant for the note's owner (it may
 * become the note's `failure_reason`), so it names the provider's answer, never a key, path or stack.
 * `retryable`: a timeout, a connection error, 408, 429 or 5xx may pass; any other answer will not.
 */
export class ProviderError extends Error {
  override name = 'ProviderError';
  constructor(
    message: string,
    readonly retryable: boolean,
    /** The provider's HTTP answer, when it gave one (its body cut to 4 KB), for callers that read its error. */
    readonly response?: { status: number; body: string },
  ) {
    super(message);
  }
}

const MAX_DETAIL = 200;

/** True for HTTP statuses worth trying again later. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The provider's own error message from an OpenAI-style `{error: {message}}` body, shortened; else ''. */
export function providerMessage(body: string): string {
  let message = '';
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const candidate =
      typeof parsed.error === 'string'
        ? parsed.error
        : typeof parsed.error?.message === 'string'
          ? parsed.error.message
          : typeof parsed.message === 'string'
            ? parsed.message
            : '';
    message = candidate;
  } catch {
    message = '';
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strip control characters from foreign text
  message = message.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return message.length > MAX_DETAIL ? `${message.slice(0, MAX_DETAIL - 1)}…` : message;
}

/**
 * Calls `fetch` with a deadline and turns every way it can fail into a ProviderError: `what` names the provider
 * in messages ("The transcription provider").
 */
export async function fetchProvider(
  what: string,
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
    throw new ProviderError(
      timedOut
        ? `${what} did not answer within ${Math.round(timeoutMs / 1000)} s.`
        : `${what} could not be reached (${connectionProblem(err)}).`,
      true,
    );
  }
  let text: string;
  try {
    text = await response.text();
  } catch {
    throw new ProviderError(`${what} closed the connection before its answer was complete.`, true);
  }
  if (!response.ok) {
    const detail = providerMessage(text);
    throw new ProviderError(
      `${what} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${
        detail ? `: ${detail}` : '.'
      }`,
      isRetryableStatus(response.status),
      { status: response.status, body: text.slice(0, 4096) },
    );
  }
  return { status: response.status, text };
}

/** A short, path-free description of a network failure ("connection refused"). */
function connectionProblem(err: unknown): string {
  const code = (err as { cause?: { code?: unknown } }).cause?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connection timed out';
    case 'UND_ERR_SOCKET':
      return 'connection closed';
    default:
      return 'network error';
  }
}
