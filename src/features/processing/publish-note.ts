import type { Logger } from 'pino';
import type { ActionItemsTable, HighlightsTable } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import type { Space } from '../../lib/space.ts';
import { toIso } from '../../lib/time.ts';
import { toActionItem } from '../action-items/action-items.view.ts';
import { recordEvent } from '../events/events.ts';
import { toNoteDetail } from '../notes/notes.view.ts';
import { findStoredNote, type storedSegments, type storedSpeakers } from '../notes/stored-note.service.ts';
import { type PreparedNoteIndex, prepareNoteIndex, writeNoteIndex } from '../search/index-note.ts';
import type { Analysis } from './analyze-builtin.ts';
import { ProcessingTimeoutError } from './pool/processing-pool.ts';
import { processingRepo } from './processing.repo.ts';
import { overBudget } from './processing-error.ts';

/** How often a publish is prepared again because the note was renamed meanwhile; the last one keeps what it has. */
const RENAME_ROUNDS = 3;

/** Thrown to roll back a publish whose prepared index holds a title the note no longer has. */
class Renamed extends Error {}

/** What an analysed note publishes: the analysis and the rows made from it, with the note's stored parts. */
export interface Publication {
  deps: Deps;
  space: Space;
  noteId: string;
  logger: Logger;
  analysis: Analysis;
  /** When the analysis finished (epoch ms): the note's updated_at. */
  now: number;
  segments: Awaited<ReturnType<typeof storedSegments>>;
  speakers: Awaited<ReturnType<typeof storedSpeakers>>;
  actionItems: ActionItemsTable[];
  highlights: HighlightsTable[];
  /** `highlights` in the order GET /v1/notes/:id uses. */
  sortedHighlights: HighlightsTable[];
  /** Index the note for keywords only when the embedder fails (the job's last attempt). */
  lastAttempt: boolean;
  budget: AbortSignal;
  budgetMs: number;
}

/**
 * Prepares the note's search index for the title it will have (the user's when they set one, else the
 * analysis's), then publishes. A rename between the two is seen in the publishing transaction (the title
 * differs): the note is read again and the index prepared again, up to RENAME_ROUNDS times.
 */
export async function publishWithIndex(
  p: Publication,
  note: { title: string; title_locked: number },
): Promise<'processed' | 'skipped'> {
  const engine = await p.deps.search.engine();
  let current = note;
  for (let round = 1; ; round++) {
    const title = current.title_locked === 1 ? current.title : p.analysis.title;
    const index = await prepareNoteIndex(
      p.deps,
      engine,
      p.noteId,
      {
        title,
        summary: p.analysis.summary,
        segments: p.segments,
        speakers: p.speakers,
        highlights: p.sortedHighlights,
        actionItems: p.actionItems,
      },
      { withoutVectorsOnFailure: p.lastAttempt, signal: p.budget },
    ).catch((err: unknown) => {
      throw err instanceof ProcessingTimeoutError ? overBudget(p.budgetMs) : err;
    });
    const outcome = await publishNote(p, engine, index, round < RENAME_ROUNDS);
    if (outcome !== 'renamed') return outcome;
    const reread = await findStoredNote(p.deps.db, p.space, p.noteId);
    if (!reread || reread.status === 'ready') return 'skipped';
    current = reread;
  }
}

/**
 * The publishing transaction: stores action items and highlights, marks the note ready (keeping a title the
 * user set), writes its search index entries and writes `action_item.created` per item, then `note.processed`.
 * `renamed`: with `recheck`, the note's title is no longer the index's, and all of it was rolled back.
 */
function publishNote(
  p: Publication,
  engine: Awaited<ReturnType<Deps['search']['engine']>>,
  index: PreparedNoteIndex,
  recheck: boolean,
): Promise<'processed' | 'skipped' | 'renamed'> {
  const { space, noteId, analysis, actionItems, highlights, logger } = p;
  return p.deps.db
    .transaction()
    .execute(async (trx) => {
      // On PostgreSQL this UPDATE locks the note's row first, as every writer of its index entries does.
      const updated = await processingRepo.markReady(trx, space, noteId, {
        title: analysis.title,
        summary: analysis.summary,
        now: toIso(p.now),
        analysisNotes: analysis.analysis_notes,
      });
      // Deleted, or finished by another worker, since it was read above.
      if (!updated) return 'skipped' as const;
      // Renamed by its owner since the index was prepared: roll back, prepare again.
      if (recheck && updated.title !== index.title) throw new Renamed();
      await processingRepo.replaceActionItems(trx, noteId, actionItems);
      await processingRepo.replaceHighlights(trx, noteId, highlights);
      await writeNoteIndex(trx, engine, space, noteId, index);

      for (const item of actionItems)
        await recordEvent(trx, space, 'action_item.created', toActionItem(item));
      const detail = toNoteDetail(
        updated,
        // The order GET /v1/notes/:id uses, so the event and the API agree.
        { segments: [], speakers: p.speakers, highlights: p.sortedHighlights, actionItems },
        false,
      );
      await recordEvent(trx, space, 'note.processed', detail);
      logger.info(
        { note_id: noteId, action_items: actionItems.length, highlights: highlights.length },
        'note processed',
      );
      return 'processed' as const;
    })
    .catch((err: unknown) => {
      if (err instanceof Renamed) return 'renamed' as const;
      throw err;
    });
}
