/**
 * The answers OpenAI-compatible servers give to a prompt longer than the model's context window, recognised from
 * their bodies: llama.cpp's server (`exceed_context_size_error`, with `n_ctx`), vLLM and OpenAI ("This model's
 * maximum context length is N tokens", OpenAI's `context_length_exceeded`) and LM Studio ("context length of only
 * N tokens"). Ollama answers none of these: it cuts the prompt silently (see `minimumTokens`).
 */
export interface ContextOverflow {
  /** The window the server reported, when its answer says. */
  contextTokens?: number;
}

const PHRASES = [
  'exceed_context_size_error',
  'exceeds the available context size',
  'context_length_exceeded',
  'maximum context length',
  'context length of only',
  'context window',
  'prompt is too long',
  'too many tokens',
  'input is too long',
  'context length exceeded',
];

/** The overflow a 4xx answer's body describes, or undefined when it is another error. */
export function recognizeContextOverflow(status: number, body: string): ContextOverflow | undefined {
  if (status < 400 || status >= 500 || status === 401 || status === 403 || status === 404) return undefined;
  const text = body.slice(0, 4096);
  const lower = text.toLowerCase();
  if (!PHRASES.some((p) => lower.includes(p))) return undefined;
  const contextTokens = reportedWindow(text);
  return contextTokens ? { contextTokens } : {};
}

/** `n_ctx` of llama.cpp's body, else the number after "context length is" / "context length of only". */
function reportedWindow(text: string): number | undefined {
  try {
    const parsed = JSON.parse(text) as { error?: { n_ctx?: unknown } };
    const nCtx = parsed.error?.n_ctx;
    if (typeof nCtx === 'number' && Number.isInteger(nCtx) && nCtx > 0) return nCtx;
  } catch {
    // Not JSON: the message is read as text below.
  }
  const lower = text.toLowerCase();
  for (const lead of ['maximum context length is ', 'context length of only ']) {
    const at = lower.indexOf(lead);
    if (at < 0) continue;
    let digits = '';
    for (const ch of lower.slice(at + lead.length, at + lead.length + 12)) {
      if (ch < '0' || ch > '9') break;
      digits += ch;
    }
    const n = Number(digits);
    if (digits && n > 0) return n;
  }
  return undefined;
}
