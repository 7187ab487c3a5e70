import type { Insertable } from 'kysely';
import type {
  ActionItemsTable,
  HighlightsTable,
  NotesTable,
  NoteTagsTable,
  SegmentsTable,
  SpeakersTable,
} from '../../src/db/schema.ts';
import type { Deps } from '../../src/deps.ts';
import { createAccount } from '../../src/features/accounts/accounts.service.ts';
import { createApiKey } from '../../src/features/api-keys/api-keys.service.ts';
import { newId } from '../../src/lib/ids.ts';
import { mulberry32 } from '../../src/lib/prng.ts';
import { benchDeps } from '../search/setup.ts';

/** Deterministic random helpers over mulberry32: the same seed gives the same data set on every run and dialect. */
function prng(seed: number) {
  const next = mulberry32(seed);
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
  };
}

const WORDS = (
  'the we our team launch budget plan roadmap customer release design review sprint metrics churn revenue ' +
  'hiring onboarding feedback deadline scope risk migration database latency incident postmortem pricing ' +
  'contract renewal partner integration mobile dashboard report quarter goal estimate blocker dependency ' +
  'handoff demo prototype research interview survey support ticket backlog priority follow up next week ' +
  'should could will need agree think maybe probably definitely already still again later today tomorrow'
).split(' ');
const NAMES = ['Alice', 'Bob', 'Carol', 'Dan', 'Erin', 'Frank', 'Grace', 'Heidi'];
/** Tag frequencies differ (the first ones are common), like real workspaces. */
export const TAGS = [
  'weekly',
  'product',
  'engineering',
  'planning',
  'sales',
  'design',
  'hiring',
  '1:1',
  'board',
];

function sentence(r: ReturnType<typeof prng>, min: number, max: number): string {
  const n = r.int(min, max);
  const words = Array.from({ length: n }, () => r.pick(WORDS));
  const text = words.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

export interface SeedResult {
  accountId: string;
  liveKey: string;
  noteIds: string[];
  /** The id of a note with a median-sized transcript, for the detail benchmark. */
  typicalNoteId: string;
  /** First and last created_at of the data set. */
  range: { from: string; to: string };
}

/** Time span of the data set: one year ending at a fixed instant (results do not depend on the day). */
const END = Date.parse('2026-11-01T00:00:00Z');
const SPAN_MS = 365 * 86_400_000;

/**
 * One account with `count` notes of realistic shape (transcripts of 15–60 speaker turns, ≈ 1–8 KB; summary;
 * 1–4 tags; 2–4 speakers; 0–4 highlights; 0–4 action items), spread over one year, written straight into the
 * database in batches. Search indexes fill through the same triggers/generated columns as in production.
 */
export async function seedNotes(database: Pick<Deps, 'db' | 'dialect'>, count: number): Promise<SeedResult> {
  const { db } = database;
  const deps = benchDeps(database);
  const account = await createAccount(deps, { email: 'bench@example.com', name: 'Benchmark' });
  const { key: liveKey } = await createApiKey(deps, { accountId: account.id, mode: 'live', name: 'bench' });
  const r = prng(20261123);
  const noteIds: string[] = [];
  const sizes: { id: string; size: number }[] = [];
  const BATCH = 200;
  for (let start = 0; start < count; start += BATCH) {
    const notes: Insertable<NotesTable>[] = [];
    const segments: SegmentsTable[] = [];
    const speakers: SpeakersTable[] = [];
    const noteTags: NoteTagsTable[] = [];
    const highlights: HighlightsTable[] = [];
    const actionItems: ActionItemsTable[] = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      const id = newId('note');
      const space = { account_id: account.id, mode: 'live' as const };
      const createdAt = new Date(END - SPAN_MS + Math.floor((i / count) * SPAN_MS) + r.int(0, 3_600_000));
      const people = NAMES.slice(0, r.int(2, 4));
      let clock = 0;
      const turns = Array.from({ length: r.int(15, 60) }, (_, position) => {
        const text = Array.from({ length: r.int(1, 3) }, () => sentence(r, 6, 22)).join(' ');
        const duration = Math.max(1000, text.split(' ').length * 400);
        const seg = {
          note_id: id,
          ...space,
          position,
          speaker: r.pick(people),
          start_ms: clock,
          end_ms: clock + duration,
          text,
        };
        clock += duration + r.int(0, 1500);
        return seg;
      });
      const transcript = turns.map((t) => `${t.speaker}: ${t.text}`).join('\n');
      const tags = [
        ...new Set(Array.from({ length: r.int(1, 4) }, () => TAGS[Math.floor(r.next() ** 2 * TAGS.length)]!)),
      ];
      const iso = createdAt.toISOString();
      notes.push({
        id,
        ...space,
        recording_id: null,
        status: 'ready' as const,
        failure_reason: null,
        title: sentence(r, 3, 7).replace(/\.$/, ''),
        title_locked: 0,
        summary: Array.from({ length: r.int(2, 4) }, () => sentence(r, 10, 24)).join(' '),
        transcript,
        duration_seconds: Math.ceil(clock / 1000),
        tags: JSON.stringify(tags),
        created_at: iso,
        updated_at: iso,
      });
      segments.push(...turns);
      speakers.push(
        ...people.map((label, position) => ({
          note_id: id,
          ...space,
          position,
          label,
          name: `${label} Example`,
        })),
      );
      noteTags.push(
        ...tags.map((tag) => ({ note_id: id, ...space, tag: tag.toLowerCase(), created_at: iso })),
      );
      for (let h = r.int(0, 4); h > 0; h--) {
        const turn = r.pick(turns);
        highlights.push({
          id: newId('highlight'),
          note_id: id,
          ...space,
          timestamp_ms: turn.start_ms,
          text: turn.text,
          created_at: iso,
        });
      }
      for (let a = r.int(0, 4); a > 0; a--) {
        const completed = r.next() < 0.4;
        actionItems.push({
          id: newId('actionItem'),
          note_id: id,
          ...space,
          text: `${r.pick(people)} will ${sentence(r, 4, 10).toLowerCase()}`,
          assignee: r.next() < 0.7 ? r.pick(people) : null,
          due:
            r.next() < 0.5
              ? new Date(createdAt.getTime() + r.int(1, 30) * 86_400_000).toISOString().slice(0, 10)
              : null,
          status: completed ? ('completed' as const) : ('pending' as const),
          created_at: iso,
          updated_at: iso,
          completed_at: completed ? iso : null,
        });
      }
      noteIds.push(id);
      sizes.push({ id, size: transcript.length });
    }
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('notes').values(notes).execute();
      // Stay under SQLite's bound-parameter limit per statement.
      for (let i = 0; i < segments.length; i += 500) {
        await trx
          .insertInto('segments')
          .values(segments.slice(i, i + 500))
          .execute();
      }
      await trx.insertInto('speakers').values(speakers).execute();
      await trx.insertInto('note_tags').values(noteTags).execute();
      if (highlights.length) await trx.insertInto('highlights').values(highlights).execute();
      if (actionItems.length) await trx.insertInto('action_items').values(actionItems).execute();
    });
  }
  sizes.sort((a, b) => a.size - b.size);
  return {
    accountId: account.id,
    liveKey,
    noteIds,
    typicalNoteId: sizes[Math.floor(sizes.length / 2)]!.id,
    range: { from: new Date(END - SPAN_MS).toISOString(), to: new Date(END).toISOString() },
  };
}
