import { expect } from 'vitest';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { useBeforeAll } from '../helpers/before-all.ts';
import type { Harness, Tenant } from '../helpers/harness.ts';

/** A budget meeting with named speakers, a marked key point and spoken commitments (→ highlights, action items). */
export const BUDGET_MEETING = {
  title: 'Q3 budget review',
  tags: ['finance', 'Planning'],
  created_at: '2026-09-14T09:00:00Z',
  speakers: [
    { label: 'Speaker 1', name: 'Maya Chen' },
    { label: 'Speaker 2', name: 'Daniel Okafor' },
  ],
  segments: [
    { speaker: 'Speaker 1', start_ms: 0, end_ms: 6_000, text: 'Thanks for joining the Q3 budget review.' },
    {
      speaker: 'Speaker 2',
      start_ms: 6_500,
      end_ms: 14_000,
      text: 'Marketing spending went over plan by twelve percent because of the conference sponsorship.',
    },
    {
      speaker: 'Speaker 1',
      start_ms: 14_500,
      end_ms: 22_000,
      text: 'Key point: the budget was exceeded, so we freeze new sponsorships until October.',
    },
    {
      speaker: 'Speaker 2',
      start_ms: 22_500,
      end_ms: 30_000,
      text: "I'll send the revised forecast to finance by Friday.",
    },
    {
      speaker: 'Speaker 1',
      start_ms: 30_500,
      end_ms: 38_000,
      text: 'Daniel, can you also check the travel costs with the regional leads?',
    },
    { speaker: 'Speaker 2', start_ms: 38_500, end_ms: 42_000, text: 'Yes, I will do that this week.' },
    { speaker: 'Speaker 1', start_ms: 42_500, end_ms: 47_000, text: 'Great, that is all for today.' },
  ],
};

/** Creates a note through POST /v1/notes and runs its processing job, as a recording would be processed. */
export async function createProcessedNote(
  h: Harness,
  key: string,
  body: Record<string, unknown> = BUDGET_MEETING,
): Promise<string> {
  const res = await h.request('POST', '/v1/notes', { key, body });
  expect(res.status, res.text.slice(0, 300)).toBe(202);
  await runDueJobs(h.deps);
  const note = await h.request('GET', `/v1/notes/${res.body.id}`, { key });
  expect(note.body.status).toBe('ready');
  return res.body.id as string;
}

/**
 * A new tenant with the budget meeting processed in live mode: the note, its first action item and the first
 * note of the tenant's seeded test data space.
 */
export function useProcessedAccount(h: Harness) {
  return useBeforeAll(async () => {
    const t: Tenant = await h.tenant();
    const noteId = await createProcessedNote(h, t.liveKey);
    const items = await h.request('GET', `/v1/action-items?note_id=${noteId}`, { key: t.liveKey });
    const testNotes = await h.request('GET', '/v1/notes?per_page=1', { key: t.testKey });
    return {
      t,
      noteId,
      itemId: items.body.data[0].id as string,
      testNoteId: testNotes.body.data[0].id as string,
    };
  });
}
