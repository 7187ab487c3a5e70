import { mulberry32 } from '../../src/lib/prng.ts';
import { corpusOf, loadMeeting, meetingNames } from './qmsum.ts';

/**
 * The transcript excerpts of the labelled action-item set, chosen without looking at their content: a fixed
 * share per corpus (AMI 28, ICSI 11, committees 6), meetings spread evenly over the sorted list, and windows
 * alternating between the meeting's end (where next steps are usually agreed) and a seeded random position.
 */
export interface Excerpt {
  id: string;
  meeting: string;
  /** First turn (inclusive) and end turn (exclusive) of `meeting_transcripts`. */
  from: number;
  to: number;
}

type Plan = Record<'ami' | 'icsi' | 'committee', { count: number; turns: number }>;

/** The development set: labelled first, used to find and fix the extractor's mistakes. */
export const DEV_PLAN: Plan = {
  ami: { count: 28, turns: 30 },
  icsi: { count: 11, turns: 20 },
  committee: { count: 6, turns: 8 },
};
/** The held-out set: other meetings, labelled before the tuned extractor ever ran on them, never tuned on. */
export const HELDOUT_PLAN: Plan = {
  ami: { count: 12, turns: 30 },
  icsi: { count: 5, turns: 20 },
  committee: { count: 3, turns: 8 },
};

export function selectExcerpts(set: 'dev' | 'heldout' = 'dev'): Excerpt[] {
  const next = mulberry32(set === 'dev' ? 20261123 : 7);
  const plan = set === 'dev' ? DEV_PLAN : HELDOUT_PLAN;
  const dev = set === 'heldout' ? new Set(selectExcerpts('dev').map((e) => e.meeting)) : new Set<string>();
  const out: Excerpt[] = [];
  for (const corpus of ['ami', 'icsi', 'committee'] as const) {
    // Held-out excerpts come only from meetings the development set does not touch.
    const names = meetingNames().filter((n) => corpusOf(n) === corpus && !dev.has(n));
    const { count, turns } = plan[corpus];
    for (let i = 0; i < count; i++) {
      const meeting = names[Math.floor(((i + (set === 'dev' ? 0 : 0.5)) * names.length) / count)]!;
      const length = loadMeeting(meeting).turns.length;
      const atEnd = i % 2 === 0;
      const from = atEnd ? Math.max(0, length - turns) : Math.floor(next() * Math.max(1, length - turns));
      out.push({ id: `${meeting}@${from}`, meeting, from, to: Math.min(length, from + turns) });
    }
  }
  return out;
}

// `npx tsx bench/ingest/excerpts.ts dev|heldout [id]`: prints excerpts for labelling.
if (process.argv[1]?.endsWith('excerpts.ts')) {
  const set = process.argv[2] === 'heldout' ? 'heldout' : 'dev';
  const only = process.argv[3];
  for (const e of selectExcerpts(set)) {
    if (only && e.id !== only) continue;
    const m = loadMeeting(e.meeting);
    process.stdout.write(`\n=== ${e.id} (${e.meeting} turns ${e.from}-${e.to - 1})\n`);
    for (let i = e.from; i < e.to; i++) {
      const t = m.turns[i]!;
      process.stdout.write(
        `[${i}] ${t.speaker}: ${t.content.replace(/\{(vocalsound|disfmarker|gap|pause|nonvocalsound)\}/g, '').replace(/\s+/g, ' ')}\n`,
      );
    }
  }
}
