import { expect } from 'vitest';
import type { Mode } from '../../src/db/schema.ts';
import { indexNote } from '../../src/features/search/index-note.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { useBeforeAll } from '../helpers/before-all.ts';
import type { Harness, Tenant } from '../helpers/harness.ts';

export interface SearchResultBody {
  note_id: string;
  title: string;
  snippet: string;
  relevance: number;
  created_at: string;
  matched_at_ms?: number;
}

/**
 * Creates a note through POST /v1/notes and runs the processing job (which indexes the note as it publishes
 * it), then re-indexes it with indexNote (idempotent: the same entries, vectors reused).
 */
export async function addNote(
  h: Harness,
  tenant: { accountId: string; liveKey: string; testKey: string },
  body: Record<string, unknown>,
  mode: Mode = 'live',
): Promise<string> {
  const key = mode === 'live' ? tenant.liveKey : tenant.testKey;
  const res = await h.request('POST', '/v1/notes', { key, body });
  expect(res.status, res.text.slice(0, 300)).toBe(202);
  await runDueJobs(h.deps);
  const id = res.body.id as string;
  expect(await indexNote(h.deps, { accountId: tenant.accountId, mode }, id)).toBe('indexed');
  return id;
}

/** POST /v1/search; asserts 200 and returns the results. */
export async function search(
  h: Harness,
  key: string,
  body: Record<string, unknown>,
): Promise<SearchResultBody[]> {
  const res = await h.request('POST', '/v1/search', { key, body });
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  return res.body.results as SearchResultBody[];
}

/**
 * Two accounts with a quarkonium note each, and one more of Alice's in her test data space: what a search or an
 * answer may draw on for one caller and must never show another.
 */
export function useTwoAccounts(h: Harness, transcripts: { alice: string; bob: string; aliceTest: string }) {
  return useBeforeAll(async () => {
    const alice = await h.tenant();
    const bob = await h.tenant();
    const aliceNote = await addNote(h, alice, { title: 'Quarkonium roadmap', transcript: transcripts.alice });
    const bobNote = await addNote(h, bob, { title: 'Quarkonium budget', transcript: transcripts.bob });
    const aliceTestNote = await addNote(
      h,
      alice,
      { title: 'Quarkonium test', transcript: transcripts.aliceTest },
      'test',
    );
    return { alice, bob, aliceNote, bobNote, aliceTestNote } as {
      alice: Tenant;
      bob: Tenant;
      aliceNote: string;
      bobNote: string;
      aliceTestNote: string;
    };
  });
}

/** Meeting transcripts on distinct topics, in `Label: text` form. */
export const MEETINGS = {
  budget: {
    title: 'Q3 finance review',
    transcript: [
      'Alice: Let us go through the numbers for the third quarter.',
      'Bob: The budget was exceeded by twelve percent, mostly because of contractor invoices.',
      'Alice: We need a tighter approval process for new purchase orders.',
      'Bob: I will prepare a cost report for the board by Friday.',
    ].join('\n'),
  },
  hiring: {
    title: 'Hiring sync',
    transcript: [
      'Carol: We interviewed three candidates for the designer role this week.',
      'Dan: The second candidate had a strong portfolio and good references.',
      'Carol: Let us schedule a final interview with the team lead.',
    ].join('\n'),
  },
  picnic: {
    title: 'Team picnic planning',
    transcript: [
      'Erin: The company picnic is on Saturday at the lake.',
      'Frank: We should bring sandwiches, lemonade and a frisbee.',
      'Erin: If it rains we will move everything to the office cafeteria.',
    ].join('\n'),
  },
  zymurgy: {
    title: 'Brewing club',
    transcript: [
      'Gina: Our zymurgy workshop covers wort chilling and yeast pitching.',
      'Hank: The fermentation temperature log shows a stable eighteen degrees.',
    ].join('\n'),
  },
} as const;
