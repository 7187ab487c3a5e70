import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { isId } from '../../lib/ids.ts';
import { nowIso } from '../../lib/time.ts';
import type { Actor } from '../api-keys/scopes.ts';
import { renderTranscript } from '../transcripts/render-transcript.ts';
import { notesRepo } from './notes.repo.ts';
import { enqueueReindex } from './reindex-note.job.ts';
import { speakersRepo } from './speakers.repo.ts';
import type { UpdateSpeakersInput } from './speakers.schema.ts';

/**
 * Renames speakers of a note and/or merges two of its labels; what refers to a speaker follows, in one
 * transaction: the segments and the transcript lines (a merge relabels the turns of `from`), the speakers list
 * (`from` goes; names are set), and action-item assignees that carried a speaker's old display name. The
 * rebuild of the note's search index (its passages read `Name: text`) is queued in the same transaction and runs
 * in the workers (reindex-note.job.ts), so a large note answers at once. A merge applies before the names.
 *
 * 400 (`parameter_invalid`) for a label the note does not have, 404 for a note of another account or mode.
 * Returns `{id, speakers}` as `PATCH /v1/notes/:id/speakers` answers. Called by REST and MCP (`rename_speakers`).
 */
export async function updateSpeakers(deps: Deps, actor: Actor, noteId: string, input: UpdateSpeakersInput) {
  const space = { accountId: actor.accountId, mode: actor.mode };
  const speakers = await deps.db.transaction().execute(async (trx) => {
    const note = isId('note', noteId) ? await notesRepo.find(trx, space, noteId) : undefined;
    if (!note) throw notFound('note', noteId);
    const now = nowIso();
    await speakersRepo.touchNote(trx, noteId, now);
    const before = await notesRepo.speakers(trx, noteId);
    const labels = new Set(before.map((s) => s.label));
    const unknown = (label: string, param: string) =>
      new AppError(
        'parameter_invalid',
        `Invalid '${param}': the note has no speaker labelled '${label}' (its labels: ${[...labels]
          .map((l) => `'${l}'`)
          .join(', ')}).`,
        { param },
      );
    const { merge } = input;
    if (merge) {
      if (!labels.has(merge.from)) throw unknown(merge.from, 'merge.from');
      if (!labels.has(merge.into)) throw unknown(merge.into, 'merge.into');
    }
    for (const [i, s] of (input.speakers ?? []).entries()) {
      if (!labels.has(s.label) || s.label === merge?.from) throw unknown(s.label, `speakers.${i}.label`);
    }

    // The display name each remaining label ends with; each old name maps to the name of the label it becomes.
    const finalName = new Map(before.map((s) => [s.label, s.name]));
    for (const s of input.speakers ?? []) finalName.set(s.label, s.name);
    const renames = new Map<string, Set<string>>();
    for (const s of before) {
      const target = s.label === merge?.from ? merge.into : s.label;
      const to = finalName.get(target)!;
      if (to !== s.name) renames.set(s.name, (renames.get(s.name) ?? new Set()).add(to));
    }
    // Two speakers with the same old name that end differently: their items cannot be told apart; kept.
    const assignees = new Map(
      [...renames].filter(([, to]) => to.size === 1).map(([from, to]) => [from, [...to][0]!]),
    );

    if (merge) {
      await speakersRepo.merge(trx, noteId, merge.from, merge.into);
      await speakersRepo.setTranscript(trx, noteId, renderTranscript(await notesRepo.segments(trx, noteId)));
    }
    for (const s of input.speakers ?? []) await speakersRepo.rename(trx, noteId, s.label, s.name);
    await speakersRepo.reassign(trx, noteId, assignees, now);
    await enqueueReindex(trx, space, noteId, deps);
    return notesRepo.speakers(trx, noteId);
  });
  return { id: noteId, speakers };
}
