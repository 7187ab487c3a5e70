import type { Db, Mode } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { newId } from '../../lib/ids.ts';
import { toIso } from '../../lib/time.ts';
import { renderTranscript } from '../transcripts/render-transcript.ts';
import { buildSeedDataset, type SeedNote } from './seed.dataset.ts';
import { type SeedRows, seedRepo } from './seed.repo.ts';

const TEST: Mode = 'test';

/**
 * Seeds the account's test data space on first use with the deterministic mock data set (24 notes with
 * transcripts, speakers, highlights, tags and action items in both states, spread over the last 60 days).
 * Once only, across processes: the data_spaces marker is inserted in the same transaction as the data
 * (ON CONFLICT DO NOTHING); whoever loses the race inserts nothing. The live data space is never touched,
 * the processing pipeline is not involved and no events are written.
 */
export async function ensureSeeded(deps: Pick<Deps, 'db' | 'seed'>, accountId: string): Promise<void> {
  const { db } = deps;
  // Accounts known to be seeded (no query per request), and seeds in progress in this process, so concurrent
  // first requests share one transaction.
  const { seeded: done, inFlight: running } = deps.seed;
  if (done.has(accountId)) return;
  let pending = running.get(accountId);
  if (!pending) {
    pending = seedOnce(db, accountId).then(
      () => {
        done.add(accountId);
        running.delete(accountId);
      },
      (err: unknown) => {
        running.delete(accountId);
        throw err;
      },
    );
    running.set(accountId, pending);
  }
  await pending;
}

async function seedOnce(db: Db, accountId: string): Promise<void> {
  if (await seedRepo.isSeeded(db, accountId, TEST)) return;
  const now = Date.now();
  const rows = toRows(accountId, buildSeedDataset(now));
  await db.transaction().execute(async (trx) => {
    if (!(await seedRepo.claim(trx, accountId, TEST, toIso(now)))) return;
    await seedRepo.insertRows(trx, rows);
  });
}

/**
 * Attaches ids and the account to the data set. Ids come from newId (CSPRNG) like every other id: the
 * content is what is deterministic, and the marker, not the ids, is what makes seeding happen once.
 */
export function toRows(accountId: string, notes: SeedNote[]): SeedRows {
  const space = { account_id: accountId, mode: TEST };
  const rows: SeedRows = {
    notes: [],
    segments: [],
    speakers: [],
    noteTags: [],
    highlights: [],
    actionItems: [],
  };
  for (const note of notes) {
    const noteId = newId('note');
    const owned = { note_id: noteId, ...space };
    rows.notes.push({
      id: noteId,
      ...space,
      recording_id: null,
      status: 'ready',
      failure_reason: null,
      title: note.title,
      title_locked: 0,
      summary: note.summary,
      transcript: renderTranscript(note.segments),
      duration_seconds: note.duration_seconds,
      tags: JSON.stringify(note.tags),
      created_at: note.created_at,
      updated_at: note.action_items[0]?.created_at ?? note.created_at,
    });
    rows.segments.push(...note.segments.map((s, position) => ({ ...owned, position, ...s })));
    rows.speakers.push(...note.speakers.map((s, position) => ({ ...owned, position, ...s })));
    rows.noteTags.push(
      ...[...new Set(note.tags.map((t) => t.toLowerCase()))].map((tag) => ({
        ...owned,
        tag,
        created_at: note.created_at,
      })),
    );
    rows.highlights.push(...note.highlights.map((h) => ({ id: newId('highlight'), ...owned, ...h })));
    rows.actionItems.push(
      ...note.action_items.map((a) => ({
        id: newId('actionItem'),
        ...owned,
        ...a,
        updated_at: a.completed_at ?? a.created_at,
      })),
    );
  }
  return rows;
}
