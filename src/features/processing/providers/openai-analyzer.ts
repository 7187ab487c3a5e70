import type { Logger } from 'pino';
import { z } from 'zod';
import type { OpenAiEndpoint } from '../../../config.ts';
import { isCalendarDate } from '../../../lib/time.ts';
import type { Analysis, AnalysisInput } from '../analyze-builtin.ts';
import type { ExtractedActionItem } from '../extract-action-items.ts';
import { MAX_TITLE_LENGTH } from '../make-title.ts';
import { truncateText } from '../sentences.ts';
import { meetingDay, nextStart, promptLines, renderPart, takeLines } from './analysis-parts.ts';
import { AnalysisImpossibleError, type AnalyzeContext, type Analyzer } from './analyzer.ts';
import { estimateTokens } from './count-tokens.ts';
import {
  ACTION_ITEM_PROPERTIES,
  applyMerge,
  MERGE_JSON_SCHEMA,
  MERGE_SYSTEM_PROMPT,
  MergeAnswer,
  ModelActionItem,
  ModelNotes,
  mergeWithoutModel,
  type PartNotes,
  renderMerge,
  SUMMARY_PROPERTY,
} from './merge-analyses.ts';
import { ProviderError } from './provider-error.ts';
import { strictArraySchema, strictObjectSchema } from './strict-object-schema.ts';
import {
  ContextOverflowError,
  type ProviderFacts,
  providerFacts,
  requestStructured,
  UnusableAnswerError,
} from './structured-chat.ts';

const MAX_ACTION_TEXT = 1000;
const MAX_HIGHLIGHT_TEXT = 300;
const MAX_SUMMARY_CHARS = 4000;

/** The JSON schema the model must answer with (`response_format: json_schema`, strict). */
export const ANALYSIS_JSON_SCHEMA = strictObjectSchema({
  title: {
    type: 'string',
    description: `What the meeting was about, at most ${MAX_TITLE_LENGTH} characters.`,
  },
  summary: SUMMARY_PROPERTY,
  action_items: strictArraySchema(ACTION_ITEM_PROPERTIES),
  highlights: strictArraySchema({
    segment: { type: 'integer', description: 'The [n] number of the transcript line.' },
    text: { type: 'string', description: 'The moment, in one sentence.' },
  }),
});

/** The answer as validated: the shape must hold exactly; values are normalised afterwards. */
const ModelAnalysis = ModelNotes.extend({
  action_items: z.array(ModelActionItem),
  highlights: z.array(z.object({ segment: z.number().int(), text: z.string() })),
});

export const SYSTEM_PROMPT = [
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

/** The user message of a transcript sent whole: the meeting date, who is who, and its numbered lines. */
export function renderPrompt(input: AnalysisInput): string {
  const lines = promptLines(input);
  return renderPart(input, lines, 0, lines.length);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: names with control characters are refused
const CONTROL = /[\u0000-\u001f\u007f]/;

/** One action item of a model's answer as the API allows it (text clipped, bad assignee or date dropped). */
export function normalizeActionItem(item: {
  text: string;
  assignee?: string | null | undefined;
  due?: string | null | undefined;
}): ExtractedActionItem | undefined {
  const text = truncateText(item.text.replace(/\s+/g, ' ').trim(), MAX_ACTION_TEXT);
  if (!text) return undefined;
  const assignee = item.assignee?.replace(/\s+/g, ' ').trim();
  const due = item.due?.trim();
  return {
    text,
    ...(assignee && [...assignee].length <= 200 && !CONTROL.test(assignee) ? { assignee } : {}),
    ...(due && isCalendarDate(due) ? { due } : {}),
  };
}

/** Validated model output → Analysis; values that break the API's rules are dropped or clipped, not trusted. */
export function normalizeModelAnalysis(raw: z.infer<typeof ModelAnalysis>, input: AnalysisInput): Analysis {
  const title = truncateText(raw.title.replace(/\s+/g, ' ').trim(), MAX_TITLE_LENGTH);
  const seen = new Set<string>();
  const action_items: Analysis['action_items'] = [];
  for (const raw_item of raw.action_items) {
    const item = normalizeActionItem(raw_item);
    if (!item || seen.has(item.text.toLowerCase())) continue;
    seen.add(item.text.toLowerCase());
    action_items.push(item);
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

/** The analysis endpoint and its context window (ANALYZE_CONTEXT_TOKENS). */
export type AnalysisEndpoint = OpenAiEndpoint & { contextTokens: number };

/** Tokens kept for the answer in every request: a quarter of the window, at most 1,536. */
export function answerReserve(window: number): number {
  return Math.min(1536, Math.floor(window / 4));
}

/** How often a window is made smaller after an overflow before the provider is given up on. */
const MAX_OVERFLOWS = 8;

/** The system prompt with the language the notes are written in. */
function withLanguage(system: string, language: string | undefined): string {
  return `${system}\n${
    language
      ? `Write the title, summary, action items and highlights in the language with BCP 47 tag "${language}".`
      : 'Write the title, summary, action items and highlights in the language the meeting was held in.'
  }`;
}

/**
 * The transcript analysed within the provider's window: whole in one request when it fits, else in parts cut on
 * line boundaries with a few lines of overlap, each analysed, then merged (`mergeParts`). A part the provider
 * could not take (an overflow error, or a prompt it cut without saying) is cut smaller and asked again; the
 * window learned is kept for the next notes. Throws AnalysisImpossibleError when not even one line fits.
 */
export async function analyzeInParts(
  input: AnalysisInput,
  endpoint: AnalysisEndpoint,
  logger: Logger,
): Promise<Analysis> {
  const known = providerFacts(endpoint);
  const lines = promptLines(input);
  const system = withLanguage(SYSTEM_PROMPT, input.language);
  const notes: PartNotes[] = [];
  const highlights = new Map<number, string>();
  let overflows = 0;
  let start = 0;
  while (start < lines.length) {
    const window = windowOf(endpoint, known);
    const header = estimateTokens(system) + estimateTokens(renderPart(input, lines, start, start)) + 64;
    const budget = window - answerReserve(window) - Math.ceil(header * known.tokenRatio);
    const end = takeLines(lines, start, budget, known.tokenRatio);
    if (end === start) throw tooSmall(window);
    let raw: z.infer<typeof ModelAnalysis>;
    try {
      raw = await requestStructured({
        endpoint,
        logger,
        schemaName: 'meeting_notes',
        schema: ANALYSIS_JSON_SCHEMA,
        validate: ModelAnalysis,
        system,
        user: renderPart(input, lines, start, end),
      });
    } catch (err) {
      if (!(err instanceof ContextOverflowError)) throw err;
      if (++overflows > MAX_OVERFLOWS) throw tooSmall(window);
      known.contextTokens = smallerWindow(window, err.contextTokens);
      logger.warn(
        { window, learned: known.contextTokens, reason: err.message },
        'analysis provider could not take the prompt; cutting the transcript smaller',
      );
      continue;
    }
    const part = normalizeModelAnalysis(raw, input);
    if (start === 0 && end === lines.length) return part;
    // A highlight must name a line of this part: another number is a model's slip, not a position.
    const from = lines[start]!.segment;
    const to = lines[end - 1]!.segment;
    for (const h of raw.highlights) {
      const text = truncateText(h.text.replace(/\s+/g, ' ').trim(), MAX_HIGHLIGHT_TEXT);
      if (h.segment >= from && h.segment <= to && text && !highlights.has(h.segment))
        highlights.set(h.segment, text);
    }
    notes.push({
      title: part.title,
      summary: part.summary,
      action_items: part.action_items,
      from,
      to,
    });
    if (end === lines.length) break;
    start = nextStart(lines, start, end, Math.min(200, Math.floor(budget / 10)));
  }
  const merged = await mergeParts(notes, input, endpoint, logger);
  return {
    title: truncateText(merged.title.replace(/\s+/g, ' ').trim(), MAX_TITLE_LENGTH),
    summary: truncateText(merged.summary.replace(/\s+/g, ' ').trim(), MAX_SUMMARY_CHARS),
    action_items: merged.action_items,
    highlights: [...highlights]
      .map(([segment, text]) => ({ timestamp_ms: input.segments[segment]!.start_ms, text }))
      .sort((a, b) => a.timestamp_ms - b.timestamp_ms),
  };
}

function windowOf(endpoint: AnalysisEndpoint, known: ProviderFacts): number {
  return Math.min(endpoint.contextTokens, known.contextTokens ?? Number.POSITIVE_INFINITY);
}

/** The window to try after an overflow: what the provider revealed when smaller, else three quarters. */
export function smallerWindow(window: number, revealed: number | undefined): number {
  return revealed !== undefined && revealed < window ? revealed : Math.floor(window * 0.75);
}

function tooSmall(window: number): AnalysisImpossibleError {
  return new AnalysisImpossibleError(
    `The analysis provider's model could not take even one part of the transcript (its context window is about ${window} tokens, too small for the instructions, one line and the answer). Load the model with a larger context window (at least 4096 tokens) and set ANALYZE_CONTEXT_TOKENS to it.`,
  );
}

/**
 * The parts' notes merged into one: consecutive parts in batches that fit the window, each batch merged by the
 * model (one title and summary, each distinct task once, see applyMerge), batches of merges again, until one is
 * left. A merge answer that stays unusable is done without the model (mergeWithoutModel): nothing is lost.
 */
async function mergeParts(
  parts: PartNotes[],
  input: AnalysisInput,
  endpoint: AnalysisEndpoint,
  logger: Logger,
): Promise<PartNotes> {
  const known = providerFacts(endpoint);
  const system = withLanguage(MERGE_SYSTEM_PROMPT, input.language);
  const date = `${input.createdAt.slice(0, 10)} (${meetingDay(input.createdAt)})`;
  let level = parts;
  let overflows = 0;
  while (level.length > 1) {
    const window = windowOf(endpoint, known);
    const budget = window - answerReserve(window) - estimateTokens(system);
    const next: PartNotes[] = [];
    let i = 0;
    let overflowed = false;
    while (i < level.length) {
      let j = i + 1;
      const fits = (k: number) =>
        Math.ceil(estimateTokens(renderMerge(date, level.slice(i, k))) * known.tokenRatio) <= budget;
      while (j < level.length && fits(j + 1)) j++;
      const batch = level.slice(i, j);
      i = j;
      if (batch.length === 1) {
        next.push(batch[0]!);
        continue;
      }
      try {
        const answer = await requestStructured({
          endpoint,
          logger,
          schemaName: 'merged_meeting_notes',
          schema: MERGE_JSON_SCHEMA,
          validate: MergeAnswer,
          system,
          user: renderMerge(date, batch),
        });
        next.push(applyMerge(batch, answer, normalizeActionItem));
      } catch (err) {
        if (err instanceof UnusableAnswerError) {
          logger.warn({ reason: err.message }, 'merge answer unusable; merging the parts without the model');
          next.push(mergeWithoutModel(batch, MAX_SUMMARY_CHARS));
          continue;
        }
        if (!(err instanceof ContextOverflowError)) throw err;
        if (++overflows > MAX_OVERFLOWS) throw tooSmall(window);
        known.contextTokens = smallerWindow(window, err.contextTokens);
        overflowed = true;
        break;
      }
    }
    if (overflowed) continue;
    // Two parts that do not fit one merge are joined without the model rather than never.
    level =
      next.length < level.length
        ? next
        : [mergeWithoutModel(level.slice(0, 2), MAX_SUMMARY_CHARS), ...level.slice(2)];
  }
  return level[0]!;
}

/**
 * Any OpenAI-compatible `POST {base}/chat/completions` (OpenAI, Ollama, llama.cpp's server, vLLM, LM Studio):
 * the transcript analysed within ANALYZE_CONTEXT_TOKENS (analyzeInParts), each answer asked for the best way the
 * provider takes and validated (requestStructured). An answer that stays unusable, or a provider error that
 * retrying cannot fix, falls back to `fallback` (the builtin analyzer); errors that may pass (timeouts, 429,
 * 5xx, after each request's own retries) are thrown so the job retries, except on its last attempt. A provider
 * that cannot take even one line fails the note (AnalysisImpossibleError).
 */
export function createOpenAiAnalyzer(endpoint: AnalysisEndpoint, fallback: Analyzer): Analyzer {
  return {
    name: 'openai',
    async analyze(input: AnalysisInput, ctx: AnalyzeContext) {
      const useFallback = async (reason: string) => {
        ctx.logger.warn({ reason, analyzer: 'openai' }, `analysis fell back to ${fallback.name}`);
        return fallback.analyze(input, ctx);
      };
      try {
        return await analyzeInParts(input, endpoint, ctx.logger);
      } catch (err) {
        if (err instanceof AnalysisImpossibleError) throw err;
        if (err instanceof UnusableAnswerError) return useFallback(err.message);
        if (err instanceof ProviderError && err.retryable && !ctx.lastAttempt) throw err;
        if (err instanceof ProviderError) return useFallback(err.message);
        throw err;
      }
    },
  };
}
