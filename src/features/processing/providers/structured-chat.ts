import type { Logger } from 'pino';
import { z } from 'zod';
import type { OpenAiEndpoint } from '../../../config.ts';
import { withJitter } from '../../../lib/backoff.ts';
import { recognizeContextOverflow } from './context-errors.ts';
import { estimateTokens, minimumTokens } from './count-tokens.ts';
import { fetchProvider, ProviderError } from './provider-error.ts';

const WHAT = 'The analysis provider';

/**
 * How a JSON answer is asked for, best first: a strict `json_schema` response format, else JSON mode
 * (`json_object`), else the schema in the instructions alone. A server that refuses one (a 4xx that is not a
 * context overflow) is asked the next way; every answer is validated against the same schema either way.
 */
export type OutputMode = 'json_schema' | 'json_object' | 'instructions';
const MODES: readonly OutputMode[] = ['json_schema', 'json_object', 'instructions'];

/** What was found out about one provider and model, for the life of the process. */
export interface ProviderFacts {
  /** The answer format it accepted last. */
  mode?: OutputMode;
  /** A context window smaller than configured, from its overflow error or its silent truncation. */
  contextTokens?: number;
  /** Its prompt tokens over our estimate, when its tokenizer counts more than `estimateTokens` (at least 1). */
  tokenRatio: number;
}

const facts = new Map<string, ProviderFacts>();

/** The facts learned about `endpoint`'s server and model (the same object on every call). */
export function providerFacts(endpoint: Pick<OpenAiEndpoint, 'baseUrl' | 'model'>): ProviderFacts {
  const key = `${endpoint.baseUrl}\n${endpoint.model}`;
  let known = facts.get(key);
  if (!known) {
    known = { tokenRatio: 1 };
    facts.set(key, known);
  }
  return known;
}

/** Forgets what was learned (tests that reuse a provider address with another behaviour). */
export function forgetProviderFacts(): void {
  facts.clear();
}

/** The prompt did not fit: the server said so, or it cut the prompt without saying (`usage.prompt_tokens`). */
export class ContextOverflowError extends Error {
  override name = 'ContextOverflowError';
  constructor(
    message: string,
    /** The window the server reported or revealed, when known. */
    readonly contextTokens?: number,
  ) {
    super(message);
  }
}

/** An answer that is not the JSON asked for, even after one repair request. */
export class UnusableAnswerError extends Error {
  override name = 'UnusableAnswerError';
}

const ChatCompletion = z.object({
  choices: z
    .array(
      z.object({
        finish_reason: z.string().nullable().optional(),
        message: z.object({
          content: z.string().nullable().optional(),
          refusal: z.string().nullable().optional(),
        }),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number().optional() }).nullable().optional(),
});

export interface StructuredChatRequest<T> {
  endpoint: OpenAiEndpoint;
  logger: Logger;
  /** The schema's name (`response_format.json_schema.name`) and the schema itself. */
  schemaName: string;
  schema: Record<string, unknown>;
  /** The answer's validation: the same whichever way it was asked for. */
  validate: z.ZodType<T>;
  system: string;
  user: string;
  /** Retries of one request that failed in a way that may pass (timeout, 429, 5xx), and their base delay. */
  retries?: number;
  retryBaseMs?: number;
}

/**
 * One chat request for a JSON answer that `validate` accepts, asked for the best way the provider takes (learned
 * per provider and model), with one repair request when the answer does not validate. Throws
 * ContextOverflowError when the prompt did not fit, UnusableAnswerError when no valid answer came, and
 * ProviderError for anything else the provider answered (`retryable` after its own retries ran out).
 */
export async function requestStructured<T>(req: StructuredChatRequest<T>): Promise<T> {
  const known = providerFacts(req.endpoint);
  let modeIndex = MODES.indexOf(known.mode ?? 'json_schema');
  const sentTokens = estimateTokens(req.system) + estimateTokens(req.user);
  const floorTokens = minimumTokens(req.user);
  for (;;) {
    const mode = MODES[modeIndex]!;
    const messages = [
      { role: 'system', content: systemFor(req, mode) },
      { role: 'user', content: req.user },
    ];
    let answer: Completion;
    try {
      answer = await send(req, mode, messages);
    } catch (err) {
      if (err instanceof ProviderError && err.response && modeIndex < MODES.length - 1) {
        const { status } = err.response;
        if (status === 400 || status === 422) {
          req.logger.info(
            { mode, model: req.endpoint.model, reason: err.message },
            'analysis provider refused the answer format; asking the next way',
          );
          modeIndex++;
          continue;
        }
      }
      throw err;
    }
    checkNotCut(answer.promptTokens, floorTokens, sentTokens, known);
    known.mode = mode;
    const first = validateContent(answer, req.validate);
    if (first.ok) return first.value;
    // One repair: the model sees its answer and what was wrong with it.
    req.logger.info({ mode, reason: first.reason }, 'analysis answer did not validate; asking once more');
    const repaired = await send(req, mode, [
      ...messages,
      { role: 'assistant', content: answer.content.slice(0, 20_000) },
      {
        role: 'user',
        content: `That answer cannot be used: ${first.reason}. Answer again with only the JSON object, following the schema exactly.`,
      },
    ]);
    const second = validateContent(repaired, req.validate);
    if (second.ok) return second.value;
    throw new UnusableAnswerError(second.reason);
  }
}

/** No server cuts a prompt to fewer tokens than this (Ollama's smallest default window is 2,048). */
const MIN_CUT_TOKENS = 1024;

/** Ollama keeps only the last `num_ctx` tokens of a prompt without an error; its `usage` gives it away. */
function checkNotCut(
  promptTokens: number | undefined,
  floorTokens: number,
  sentTokens: number,
  known: ProviderFacts,
) {
  // A count this small is a prompt cache at work (Ollama counts only the tokens it evaluated), not a window.
  if (promptTokens === undefined || promptTokens < MIN_CUT_TOKENS) return;
  if (promptTokens < floorTokens) {
    throw new ContextOverflowError(
      `the provider read ${promptTokens} tokens of a prompt of at least ${floorTokens}: it cut the prompt`,
      promptTokens,
    );
  }
  if (promptTokens > sentTokens) known.tokenRatio = Math.max(known.tokenRatio, promptTokens / sentTokens);
}

interface Completion {
  content: string;
  finishReason?: string | null | undefined;
  refusal?: string | null | undefined;
  promptTokens?: number | undefined;
}

/** One POST with its own retries; a context overflow is recognised from the error body. */
async function send(
  req: StructuredChatRequest<unknown>,
  mode: OutputMode,
  messages: { role: string; content: string }[],
): Promise<Completion> {
  const { endpoint } = req;
  const retries = req.retries ?? 2;
  for (let attempt = 0; ; attempt++) {
    try {
      const { text } = await fetchProvider(
        WHAT,
        `${endpoint.baseUrl}/chat/completions`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model: endpoint.model,
            temperature: 0,
            messages,
            ...responseFormat(req, mode),
          }),
        },
        endpoint.timeoutMs,
      );
      return readCompletion(text);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      const overflow = err.response && recognizeContextOverflow(err.response.status, err.response.body);
      if (overflow) throw new ContextOverflowError(err.message, overflow.contextTokens);
      if (!err.retryable || attempt >= retries) throw err;
      const delay = withJitter((req.retryBaseMs ?? 1000) * 2 ** attempt, { below: 0.2, above: 0.2 });
      req.logger.info(
        { attempt: attempt + 1, delay_ms: delay, reason: err.message },
        'retrying analysis request',
      );
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

function responseFormat(req: StructuredChatRequest<unknown>, mode: OutputMode) {
  switch (mode) {
    case 'json_schema':
      return {
        response_format: {
          type: 'json_schema',
          json_schema: { name: req.schemaName, strict: true, schema: req.schema },
        },
      };
    case 'json_object':
      return { response_format: { type: 'json_object' } };
    case 'instructions':
      return {};
  }
}

/** Without a schema-enforcing response format, the schema goes into the instructions. */
function systemFor(req: StructuredChatRequest<unknown>, mode: OutputMode): string {
  if (mode === 'json_schema') return req.system;
  return `${req.system}\nAnswer with one JSON object and nothing else (no prose, no code fence), matching this JSON schema:\n${JSON.stringify(req.schema)}`;
}

function readCompletion(text: string): Completion {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UnusableAnswerError('the answer is not JSON');
  }
  const parsed = ChatCompletion.safeParse(json);
  if (!parsed.success) throw new UnusableAnswerError('the answer is not a chat completion');
  const choice = parsed.data.choices[0]!;
  return {
    content: choice.message.content ?? '',
    finishReason: choice.finish_reason,
    refusal: choice.message.refusal,
    promptTokens: parsed.data.usage?.prompt_tokens,
  };
}

function validateContent<T>(
  answer: Completion,
  schema: z.ZodType<T>,
): { ok: true; value: T } | { ok: false; reason: string } {
  if (answer.refusal) return { ok: false, reason: 'the model refused' };
  if (answer.finishReason === 'length') return { ok: false, reason: 'the output was cut off (length)' };
  const json = extractJsonObject(answer.content);
  if (json === undefined) return { ok: false, reason: 'the message holds no JSON object' };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { ok: false, reason: 'the message content is not valid JSON' };
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      reason: `the output does not match the schema: ${z.prettifyError(parsed.error).split('\n')[0]}`,
    };
  }
  return { ok: true, value: parsed.data };
}

/**
 * The first complete top-level `{…}` in a model's message: the whole of it when it is bare JSON, else the object
 * inside prose or a Markdown code fence. One pass that tracks strings and nesting depth.
 */
export function extractJsonObject(text: string): string | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}
