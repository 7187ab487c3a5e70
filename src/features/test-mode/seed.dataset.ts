import type { ActionItemStatus } from '../../db/schema.ts';
import { mulberry32 } from '../../lib/prng.ts';
import { toIso } from '../../lib/time.ts';
import { PEOPLE, TOPICS, type TopicTemplate } from './seed.catalogue.ts';

/** One mock note with everything it owns, before ids and the account are attached. */
export interface SeedNote {
  title: string;
  summary: string;
  tags: string[];
  created_at: string;
  duration_seconds: number;
  speakers: { label: string; name: string }[];
  segments: { speaker: string; start_ms: number; end_ms: number; text: string }[];
  highlights: { timestamp_ms: number; text: string; created_at: string }[];
  action_items: {
    text: string;
    assignee: string | null;
    due: string | null;
    status: ActionItemStatus;
    created_at: string;
    completed_at: string | null;
  }[];
}

/** Fixed seed: every account gets the same content; only the timestamps follow the seeding time. */
const PRNG_SEED = 0x5eed_2026;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** The notes span this many days back from the seeding time (the contract says 60). */
const SPAN_DAYS = 58;
const WORDS_PER_MINUTE = 150;

/** Replaces `{name}` placeholders; an unknown one is a bug in the catalogue, so it throws. */
export function fill(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = vars[name];
    if (value === undefined) throw new Error(`seed catalogue: no value for {${name}} in "${template}"`);
    return value;
  });
}

const int = (rand: () => number, min: number, max: number) => min + Math.floor(rand() * (max - min + 1));

function shuffle<T>(rand: () => number, items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const floorToSecond = (ms: number) => Math.floor(ms / 1000) * 1000;

/**
 * The test-mode data set relative to `now` (ms): 24 notes, from a few hours to ~58 days old, each with
 * 3–4 named speakers, 12–15 timed turns, highlights and action items. Older items are more often completed.
 * Pure and deterministic: the same `now` gives the same result.
 */
export function buildSeedDataset(now: number): SeedNote[] {
  const rand = mulberry32(PRNG_SEED);
  const instances = shuffle(
    rand,
    TOPICS.flatMap((topic) => topic.variants.map((vars) => ({ topic, vars }))),
  );
  const step = (SPAN_DAYS * DAY_MS) / Math.max(1, instances.length - 1);
  return instances.map(({ topic, vars }, index) => {
    const ageMs = 2 * HOUR_MS + index * step + int(rand, 0, 8 * 60) * 60_000;
    return buildNote(rand, topic, vars, floorToSecond(now - ageMs), now);
  });
}

function buildNote(
  rand: () => number,
  topic: TopicTemplate,
  variant: Readonly<Record<string, string>>,
  createdAt: number,
  now: number,
): SeedNote {
  const people = shuffle(rand, [...PEOPLE]).slice(0, topic.speakers);
  const speakers = people.map((name, i) => ({ label: `Speaker ${i + 1}`, name }));
  const vars: Record<string, string> = { ...variant };
  for (const [i, name] of people.entries()) vars['ABCD'[i]!] = name.split(' ')[0]!;

  let clock = int(rand, 400, 4000);
  const segments = topic.turns.map(([role, text]) => {
    const filled = fill(text, vars);
    const words = filled.split(/\s+/).length;
    const spoken = Math.max(1200, Math.round((words / WORDS_PER_MINUTE) * 60_000 * (0.85 + rand() * 0.3)));
    const segment = { speaker: speakers[role]!.label, start_ms: clock, end_ms: clock + spoken, text: filled };
    clock = segment.end_ms + int(rand, 250, 1500);
    return segment;
  });
  const durationSeconds = Math.ceil(segments.at(-1)!.end_ms / 1000) + int(rand, 2, 20);
  // Processing finishes a little after the recording ends; highlights and items date from then.
  const processedAt = createdAt + durationSeconds * 1000 + int(rand, 20, 90) * 1000;
  const ageDays = (now - createdAt) / DAY_MS;
  const completionOdds = Math.min(0.8, ageDays / 35);

  return {
    title: fill(topic.title, vars),
    summary: fill(topic.summary, vars),
    tags: [...topic.tags],
    created_at: toIso(createdAt),
    duration_seconds: durationSeconds,
    speakers,
    segments,
    highlights: topic.highlights.map((turn) => ({
      timestamp_ms: segments[turn]!.start_ms,
      text: segments[turn]!.text,
      created_at: toIso(processedAt),
    })),
    action_items: topic.actions.map((action, i) => {
      const itemCreated = processedAt + i;
      const completed = rand() < completionOdds;
      const completedAt = floorToSecond(itemCreated + (now - itemCreated) * (0.05 + rand() * 0.6));
      return {
        text: fill(action.text, vars),
        assignee: action.assignee === undefined ? null : people[action.assignee]!,
        due:
          action.dueInDays === undefined ? null : toIso(createdAt + action.dueInDays * DAY_MS).slice(0, 10),
        status: completed ? 'completed' : 'pending',
        created_at: toIso(itemCreated),
        completed_at: completed ? toIso(Math.max(completedAt, itemCreated + 1000)) : null,
      };
    }),
  };
}
