import { z } from 'zod';
import type { OpenAiEndpoint } from '../../../config.ts';
import { isCalendarDate } from '../../../lib/time.ts';
import type { Analysis, AnalysisInput } from '../analyze-builtin.ts';
import { MAX_TITLE_LENGTH } from '../make-title.ts';
import { truncateText } from '../sentences.ts';
import type { AnalyzeContext, Analyzer } from './analyzer.ts';
import { fetchProvider, ProviderError } from './provider-error.ts';

const WHAT = 'The analysis provider';

/** Transcripts longer than this are not sent (most models' context would cut them); builtin analyzes them. */
export const MAX_PROMPT_CHARS = 400_000;
const MAX_ACTION_TEXT = 1000;
const MAX_HIGHLIGHT_TEXT = 300;
const MAX_SUMMARY_CHARS = 4000;

/** The JSON schema the model must answer with (`response_format: json_schema`, strict). */
export const ANALYSIS_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'summary', 'action_items', 'highlights'],
  properties: {
    title: {
      type: 'string',
      description: `What the meeting was about, at most ${MAX_TITLE_LENGTH} characters.`,
    },
    summary: { type: 'string', description: '3 to 6 sentences covering the whole meeting.' },
    action_items: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['text', 'assignee', 'due'],
        properties: {
          text: { type: 'string', description: 'The task, starting with a verb.' },
          assignee: { type: ['string', 'null'], description: "The responsible person's name, or null." },
          due: { type: ['string', 'null'], description: 'Due date YYYY-MM-DD, or null.' },
        },
      },
    },
    highlights: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['segment', 'text'],
        properties: {
          segment: { type: 'integer', description: 'The [n] number of the transcript line.' },
          text: { type: 'string', description: 'The moment, in one sentence.' },
        },
      },
    },
  },
} as const;

/** The answer as validated: the shape must hold exactly; values are normalised afterwards. */
const ModelAnalysis = z.object({
  title: z.string().refine((v) => v.trim().length > 0 && !/^untitled\b/i.test(v.trim()), 'title is empty'),
  summary: z.string().refine((v) => v.trim().length > 0, 'summary is empty'),
  action_items: z.array(
    z.object({
      text: z.string(),
      assignee: z.string().nullable().optional(),
      due: z.string().nullable().optional(),
    }),
  ),
  highlights: z.array(z.object({ segment: z.number().int(), text: z.string() })),
});

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
});

const SYSTEM_PROMPT = [
  'You turn meeting transcripts into notes. Answer with JSON only, following the schema.',
  `- title: what the meeting was about, at most ${MAX_TITLE_LENGTH} characters, never "Untitled".`,
  '- summary: 3 to 6 plain sentences covering the decisions and main topics of the whole meeting.',
  '- action_items: every commitment or request someone would put on a to-do list ("I\'ll send the deck",',
  '  "can you book the room by Friday", "we need to decide X"). text starts with a verb. assignee: the',
  '  display name of the person who committed or was asked (use the speaker names given), or null when',
  '  nobody in particular. due: YYYY-MM-DD resolved against the meeting date ("by Friday" = the next',
  '  Friday after it), or null when no deadline was said. Do not invent tasks.',
  '- highlights: up to 5 key moments; segment is the [n] number of the line where it was said. Include',
  '  every line someone explicitly marked ("highlight", "bookmark", "important", "key point").',
].join('\n');

function clock(ms: number): string {
  const total = Math.floor(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mmss = `${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
  return h ? `${h}:${mmss}` : mmss;
}

/** The user message: the meeting date, who is who, and the transcript with line numbers and times. */
export function renderPrompt(input: AnalysisInput): string {
  const names = new Map(input.speakers.map((s) => [s.label, s.name]));
  const date = new Date(input.createdAt);
  const day = date.toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
  const lines = input.segments.map(
    (s, i) =>
      `[${i}] ${clock(s.start_ms)} ${names.get(s.speaker) || s.speaker}: ${s.text.replace(/\s+/g, ' ')}`,
  );
  return [
    `Meeting date: ${input.createdAt.slice(0, 10)} (${day}).`,
    `Speakers: ${[...new Set(input.segments.map((s) => names.get(s.speaker) || s.speaker))].join(', ')}.`,
    'Transcript:',
    ...lines,
  ].join('\n');
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: names with control characters are refused
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Validated model output → Analysis; values that break the API's rules are dropped or clipped, not trusted. */
export function normalizeModelAnalysis(raw: z.infer<typeof ModelAnalysis>, input: AnalysisInput): Analysis {
  const title = truncateText(raw.title.replace(/\s+/g, ' ').trim(), MAX_TITLE_LENGTH);
  const seen = new Set<string>();
  const action_items: Analysis['action_items'] = [];
  for (const item of raw.action_items) {
    const text = truncateText(item.text.trim(), MAX_ACTION_TEXT);
    if (!text || seen.has(text.toLowerCase())) continue;
    seen.add(text.toLowerCase());
    const assignee = item.assignee?.replace(/\s+/g, ' ').trim();
    const due = item.due?.trim();
    action_items.push({
      text,
      ...(assignee && [...assignee].length <= 200 && !CONTROL.test(assignee) ? { assignee } : {}),
      ...(due && isCalendarDate(due) ? { due } : {}),
    });
  }
  const highlights: Analysis['highlights'] = [];
  const marked = new Set<number>();
  for (const h of raw.highlights) {
    const segment = input.segments[h.segment];
    const text = truncateText(h.text.replace(/\s+/g, ' ').trim(), MAX_HIGHLIGHT_TEXT);
    if (!segment || !text || marked.has(h.segment)) continue;
    marked.add(h.segment);
    highlights.push({ timestamp_ms: segment.start_ms, text });
  }
  highlights.sort((a, b) => a.timestamp_ms - b.timestamp_ms);
  return {
    title,
    summary: truncateText(raw.summary.replace(/\s+/g, ' ').trim(), MAX_SUMMARY_CHARS),
    action_items,
    highlights,
  };
}

/** The content of the first choice as a JSON object, or a reason why there is none. */
function parseCompletion(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'the answer is not JSON' };
  }
  const completion = ChatCompletion.safeParse(json);
  if (!completion.success) return { ok: false, reason: 'the answer is not a chat completion' };
  const choice = completion.data.choices[0]!;
  if (choice.message.refusal) return { ok: false, reason: 'the model refused' };
  if (choice.finish_reason === 'length') return { ok: false, reason: 'the output was cut off (length)' };
  // Some servers wrap JSON in a Markdown fence even when asked for a schema.
  const content = (choice.message.content ?? '')
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/(?<!\s)\s*```$/, '');
  try {
    return { ok: true, value: JSON.parse(content) };
  } catch {
    return { ok: false, reason: 'the message content is not JSON' };
  }
}

/**
 * Any OpenAI-compatible `POST {base}/chat/completions` (OpenAI, Ollama, vLLM, LM Studio) asked for a strict
 * JSON-schema answer, which is validated. An answer that does not fit, a refusal, a transcript too long to
 * send, or a provider error that retrying cannot fix falls back to `fallback` (the builtin analyzer). Errors
 * that may pass (timeouts, 429, 5xx) are thrown so the job retries, except on its last attempt.
 */
export function createOpenAiAnalyzer(endpoint: OpenAiEndpoint, fallback: Analyzer): Analyzer {
  return {
    name: 'openai',
    async analyze(input: AnalysisInput, ctx: AnalyzeContext) {
      const useFallback = async (reason: string) => {
        ctx.logger.warn({ reason, analyzer: 'openai' }, `analysis fell back to ${fallback.name}`);
        return fallback.analyze(input, ctx);
      };
      const prompt = renderPrompt(input);
      if (prompt.length > MAX_PROMPT_CHARS) {
        return useFallback(`the transcript is longer than ${MAX_PROMPT_CHARS} characters`);
      }
      let answer: { text: string };
      try {
        answer = await fetchProvider(
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
              messages: [
                { role: 'system', content: SYSTEM_PROMPT },
                { role: 'user', content: prompt },
              ],
              response_format: {
                type: 'json_schema',
                json_schema: { name: 'meeting_notes', strict: true, schema: ANALYSIS_JSON_SCHEMA },
              },
            }),
          },
          endpoint.timeoutMs,
        );
      } catch (err) {
        if (err instanceof ProviderError && err.retryable && !ctx.lastAttempt) throw err;
        return useFallback(err instanceof Error ? err.message : String(err));
      }
      const content = parseCompletion(answer.text);
      if (!content.ok) return useFallback(content.reason);
      const parsed = ModelAnalysis.safeParse(content.value);
      if (!parsed.success) {
        return useFallback(
          `the output does not match the schema: ${z.prettifyError(parsed.error).split('\n')[0]}`,
        );
      }
      return normalizeModelAnalysis(parsed.data, input);
    },
  };
}
