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
/**
 * The second development set: meetings neither other set touches, picked the same content-blind way (another
 * seed, another offset into the list), labelled before the extractor ran on them; used to learn from, like `dev`.
 */
export const DEV2_PLAN: Plan = {
  ami: { count: 20, turns: 30 },
  icsi: { count: 8, turns: 20 },
  committee: { count: 4, turns: 8 },
};
/**
 * The third development set: meetings no other set touches, labelled after the extractor was tuned on `dev` and
 * `dev2` but before it ran on them, so its first figure was an honest check; used to learn from afterwards.
 */
export const DEV3_PLAN: Plan = {
  ami: { count: 14, turns: 30 },
  icsi: { count: 6, turns: 20 },
  committee: { count: 4, turns: 8 },
};
/** The fourth development set: a second honest check like `dev3`, then material to learn from. */
export const DEV4_PLAN: Plan = {
  ami: { count: 14, turns: 30 },
  icsi: { count: 6, turns: 20 },
  committee: { count: 4, turns: 8 },
};
/** The fifth development set: one excerpt of each of the 17 meetings no other set touches; a third check. */
export const DEV5_PLAN: Plan = {
  ami: { count: 9, turns: 30 },
  icsi: { count: 5, turns: 20 },
  committee: { count: 3, turns: 8 },
};
/** The held-out set: other meetings, labelled before the tuned extractor ever ran on them, never tuned on. */
export const HELDOUT_PLAN: Plan = {
  ami: { count: 12, turns: 30 },
  icsi: { count: 5, turns: 20 },
  committee: { count: 3, turns: 8 },
};

export type ExcerptSet =
  | 'dev'
  | 'dev2'
  | 'dev3'
  | 'dev4'
  | 'dev5'
  | 'heldout'
  | 'train'
  | 'test'
  | 'final'
  | 'train2'
  | 'final2'
  | 'train3';
/** The sets picked by corpus plan; the others are picked as further windows of their meetings. */
type ExtraSet = 'train' | 'test' | 'final' | 'train2' | 'final2' | 'train3';
type PlannedSet = Exclude<ExcerptSet, ExtraSet>;
const isExtra = (set: ExcerptSet): set is ExtraSet => set in EXTRA;
const DEV_SETS: PlannedSet[] = ['dev', 'dev2', 'dev3', 'dev4', 'dev5'];

/**
 * More material for the learned detector: further windows of the development meetings (`train`, 110 excerpts,
 * one window per meeting, meetings spread evenly), and of the held-out meetings (`test`, 50 excerpts, 2–3 per
 * meeting), each window overlapping no other labelled window of its meeting. `test` is the final check: its
 * meetings were never tuned on by the rules nor trained on by the detector.
 *
 * `final` (41 excerpts: 46 windows asked for, two or three per held-out meeting, the rest found no free place;
 * overlapping no window of any other set, `test` included) replaced `test` as the final check once `test` had
 * been measured more than once: labelled before anything ran on it and measured once, at the end.
 *
 * `train2` and `train3` (150 and 480 windows of the development meetings asked for) and `final2` (two or three
 * more windows of each held-out meeting) came with issue 17's third round: more material for the detector, and a
 * check labelled before anything of that round ran on it. Every other window of theirs lies in the last quarter
 * of its meeting, where next steps are usually agreed (`late`; still blind to content), because a random window
 * holds few items.
 */
const EXTRA: Record<
  ExtraSet,
  { from: PlannedSet[]; count: number; seed: number; avoid: ExtraSet[]; late?: boolean }
> = {
  train: { from: DEV_SETS, count: 110, seed: 20261124_17, avoid: [] },
  test: { from: ['heldout'], count: 50, seed: 20261124_18, avoid: [] },
  final: { from: ['heldout'], count: 46, seed: 20261124_19, avoid: ['train', 'test'] },
  train2: { from: DEV_SETS, count: 150, seed: 20261125_21, avoid: ['train', 'test', 'final'], late: true },
  final2: {
    from: ['heldout'],
    count: 46,
    seed: 20261125_22,
    avoid: ['train', 'test', 'final', 'train2'],
    late: true,
  },
  train3: {
    from: DEV_SETS,
    count: 480,
    seed: 20261125_23,
    avoid: ['train', 'test', 'final', 'train2', 'final2'],
    late: true,
  },
};
const TURNS: Record<'ami' | 'icsi' | 'committee', number> = { ami: 30, icsi: 20, committee: 8 };

function extraExcerpts(set: ExtraSet): Excerpt[] {
  const { from, count, seed, avoid, late } = EXTRA[set];
  const next = mulberry32(seed);
  const planned = [...(Object.keys(PLANS) as PlannedSet[]), ...avoid].flatMap((s) => selectExcerpts(s));
  const meetings = [...new Set(from.flatMap((s) => selectExcerpts(s).map((e) => e.meeting)))].sort();
  const taken = new Map<string, [number, number][]>();
  for (const e of planned) taken.set(e.meeting, [...(taken.get(e.meeting) ?? []), [e.from, e.to]]);
  const out: Excerpt[] = [];
  for (let i = 0; i < count; i++) {
    const meeting = meetings[Math.floor((i * meetings.length) / count) % meetings.length]!;
    const length = loadMeeting(meeting).turns.length;
    const turns = TURNS[corpusOf(meeting)];
    const busy = taken.get(meeting) ?? [];
    // A seeded random start whose window overlaps no labelled window of the meeting (a few tries, else none).
    const lastQuarter = late && i % 2 === 0;
    for (let attempt = 0; attempt < 50; attempt++) {
      const lowest = lastQuarter ? Math.floor(length * 0.75) : 0;
      const start = lowest + Math.floor(next() * Math.max(1, length - turns - lowest));
      const end = Math.min(length, start + turns);
      if (busy.some(([a, b]) => start < b && a < end)) continue;
      busy.push([start, end]);
      taken.set(meeting, busy);
      out.push({ id: `${meeting}@${start}`, meeting, from: start, to: end });
      break;
    }
  }
  return out;
}

const PLANS: Record<PlannedSet, { plan: Plan; seed: number; offset: number; excludes: ExcerptSet[] }> = {
  dev: { plan: DEV_PLAN, seed: 20261123, offset: 0, excludes: [] },
  heldout: { plan: HELDOUT_PLAN, seed: 7, offset: 0.5, excludes: ['dev'] },
  dev2: { plan: DEV2_PLAN, seed: 20261124, offset: 0.25, excludes: ['dev', 'heldout'] },
  dev3: { plan: DEV3_PLAN, seed: 20261125, offset: 0.75, excludes: ['dev', 'heldout', 'dev2'] },
  dev4: { plan: DEV4_PLAN, seed: 20261126, offset: 0.5, excludes: ['dev', 'heldout', 'dev2', 'dev3'] },
  dev5: { plan: DEV5_PLAN, seed: 20261127, offset: 0, excludes: ['dev', 'heldout', 'dev2', 'dev3', 'dev4'] },
};

export function selectExcerpts(set: ExcerptSet = 'dev'): Excerpt[] {
  if (isExtra(set)) return extraExcerpts(set);
  const { plan, seed, offset, excludes } = PLANS[set];
  const next = mulberry32(seed);
  // Each set takes its excerpts only from meetings the sets before it do not touch.
  const taken = new Set<string>(excludes.flatMap((other) => selectExcerpts(other).map((e) => e.meeting)));
  const out: Excerpt[] = [];
  for (const corpus of ['ami', 'icsi', 'committee'] as const) {
    const names = meetingNames().filter((n) => corpusOf(n) === corpus && !taken.has(n));
    const { count, turns } = plan[corpus];
    for (let i = 0; i < count; i++) {
      const meeting = names[Math.floor(((i + offset) * names.length) / count)]!;
      const length = loadMeeting(meeting).turns.length;
      const atEnd = i % 2 === 0;
      const from = atEnd ? Math.max(0, length - turns) : Math.floor(next() * Math.max(1, length - turns));
      out.push({ id: `${meeting}@${from}`, meeting, from, to: Math.min(length, from + turns) });
    }
  }
  return out;
}

// `npx tsx bench/ingest/excerpts.ts SET [id]` (any set above): prints excerpts for labelling.
if (process.argv[1]?.endsWith('excerpts.ts')) {
  const sets: readonly string[] = [...Object.keys(PLANS), ...Object.keys(EXTRA)];
  const set = (sets.includes(process.argv[2] ?? '') ? process.argv[2] : 'dev') as ExcerptSet;
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
