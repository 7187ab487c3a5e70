import type { Deps } from '../../deps.ts';
import { AppError } from '../../lib/errors.ts';
import type { Actor } from '../api-keys/scopes.ts';
import { getNote } from '../notes/notes.service.ts';
import { ProcessingTimeoutError } from '../processing/pool/processing-pool.ts';
import { passageSimilarities } from '../search/passage-similarity.ts';
import { searchNotes } from '../search/search.service.ts';
import type { AskInput, AskResult } from './ask.schema.ts';
import { type Answer, type AskNote, isTimeQuestion, NOTHING_RELEVANT } from './extractive.ts';
import { answerGeneratively } from './generative.ts';

/** Notes read to answer a question over the whole space: search's best, relevant ones only. */
const NOTES_ASKED = 5;
/** The most a question may keep the processing thread: about 100 times the p95 over a long meeting. */
const ANSWER_BUDGET_MS = 10_000;
/** Search's calibrated line between relevant and not (search.schema.ts, min_relevance). */
const RELEVANT = 0.5;

/**
 * Answers a question from the caller's notes with verbatim citations. With `note_id`, that note (404 when it is
 * not the caller's, in this mode); otherwise search locates the relevant notes, and none relevant is an answer
 * (`answered: false`). The answer is chosen in a processing thread, never on the API's event loop.
 */
export async function askNotes(deps: Deps, actor: Actor, input: AskInput): Promise<AskResult> {
  const notes: AskNote[] = [];
  if (input.note_id !== undefined) {
    notes.push(toAskNote(await getNote(deps, actor, input.note_id, { segments: true })));
  } else {
    const { results } = await searchNotes(deps, actor, {
      query: input.question,
      limit: NOTES_ASKED,
      min_relevance: RELEVANT,
      ...(input.from !== undefined ? { from: input.from } : {}),
      ...(input.to !== undefined ? { to: input.to } : {}),
      ...(input.tag !== undefined ? { tag: input.tag } : {}),
    });
    // Read together, in search order; a note deleted between the search and now is simply not asked.
    const details = await Promise.all(
      results.map((r) => getNote(deps, actor, r.note_id, { segments: true }).catch(() => undefined)),
    );
    for (const detail of details) if (detail) notes.push(toAskNote(detail));
  }
  if (!notes.some((n) => n.segments.length))
    return { answered: false, answer: NOTHING_RELEVANT, mode: 'extractive', citations: [] };
  const similarities = await passageSimilarities(
    deps,
    { accountId: actor.accountId, mode: actor.mode },
    notes.map((n) => n.id),
    input.question,
  );
  for (const note of notes) note.passages = similarities.get(note.id);
  let extractive: Answer;
  try {
    extractive = await deps.processing.ask(
      input.question,
      notes,
      input.max_citations,
      AbortSignal.timeout(ANSWER_BUDGET_MS),
    );
  } catch (err) {
    if (!(err instanceof ProcessingTimeoutError)) throw err;
    throw new AppError('unavailable', 'Answering took too long; ask again, or ask one note with note_id.', {
      headers: { 'Retry-After': '1' },
    });
  }
  const { passages, ...offline } = extractive;
  const analysis = deps.config.analysis;
  if (analysis.provider !== 'openai' || !offline.answered || !passages?.length)
    return { ...offline, mode: 'extractive' };
  // The language model reads only the passages the extractive answerer located, and only verified quotes stay;
  // for a question about time it reads the newest note first.
  const shown = isTimeQuestion(input.question)
    ? [...notes].sort((a, b) => b.created_at.localeCompare(a.created_at))
    : notes;
  const generated = await answerGeneratively(
    input.question,
    shown,
    passages,
    input.max_citations,
    analysis,
    deps.logger,
  );
  if ('reason' in generated) {
    deps.logger.warn(
      { reason: generated.reason },
      'ask: giving the extractive answer instead of a generated one',
    );
    return { ...offline, mode: 'extractive' };
  }
  return generated.answered
    ? { answered: true, answer: generated.answer, mode: 'generative', citations: generated.citations }
    : { answered: false, answer: NOTHING_RELEVANT, mode: 'generative', citations: [] };
}

function toAskNote(note: {
  id: string;
  title: string;
  created_at: string;
  segments?: { speaker: string; start_ms: number; end_ms: number; text: string }[];
}): AskNote {
  return { id: note.id, title: note.title, created_at: note.created_at, segments: note.segments ?? [] };
}
