/**
 * Search quality on the independent author sets (npm run bench:search-authors): each file of sets/ was written by
 * a different author from a different brief, without seeing the engine. Every set goes into an account of its own,
 * through the same services as the API (createNote, the processing job, indexing), and every query is asked through
 * searchNotes as GET /v1/search asks it. Prints, per set and per query kind, MRR@10, the right note first at
 * relevance ≥ 0.5, and the share of off-topic queries with any result ≥ 0.5. Options: --set NAME (one set),
 * --out FILE (the figures as JSON).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Deps } from '../../src/deps.ts';
import type { Actor } from '../../src/features/api-keys/scopes.ts';
import { createNote } from '../../src/features/notes/notes.service.ts';
import { indexNote } from '../../src/features/search/index-note.ts';
import { searchNotes } from '../../src/features/search/search.service.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';
import { benchActor, benchDeps, openBenchDatabase } from '../search/setup.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const SETS_DIR = path.join(here, 'sets');

export interface AuthorQuery {
  text: string;
  kind: string;
}

export interface AuthorSet {
  author: string;
  brief: string;
  notes: { id: string; title: string; created_at: string; transcript: string; queries: AuthorQuery[] }[];
  near_topic_pairs: [string, string][];
  off_topic: AuthorQuery[];
}

export function loadAuthorSets(only?: string): AuthorSet[] {
  return fs
    .readdirSync(SETS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(SETS_DIR, f), 'utf8')) as AuthorSet)
    .filter((s) => !only || s.author === only);
}

/** One query's outcome: the rank (1-based) and relevance of the right note, or the best relevance off topic. */
export interface QueryOutcome {
  set: string;
  kind: string;
  query: string;
  offTopic: boolean;
  /** Rank of the right note in the first 10, if there. */
  rank?: number;
  firstRelevance?: number;
  /** Highest relevance of any result (off-topic false alarms). */
  maxRelevance: number;
}

/** Ingests a set into the actor's space through the services; returns the note id of each set note id. */
export async function ingestAuthorSet(
  deps: Deps,
  actor: Actor,
  set: AuthorSet,
): Promise<Map<string, string>> {
  const space = { accountId: actor.accountId, mode: actor.mode };
  const ids = new Map<string, string>();
  for (const note of set.notes) {
    const created = await createNote(deps, actor, {
      transcript: note.transcript,
      title: note.title,
      created_at: note.created_at,
    });
    ids.set(note.id, created.id);
  }
  await runDueJobs(deps);
  for (const id of ids.values()) await indexNote(deps, space, id);
  return ids;
}

/** Ingests a set into the actor's space and asks every query; results are unfiltered (min_relevance 0). */
export async function runAuthorSet(deps: Deps, actor: Actor, set: AuthorSet): Promise<QueryOutcome[]> {
  const ids = await ingestAuthorSet(deps, actor, set);
  const ask = (query: string) => searchNotes(deps, actor, { query, limit: 10, min_relevance: 0 });
  const out: QueryOutcome[] = [];
  for (const note of set.notes) {
    for (const q of note.queries) {
      const { results } = await ask(q.text);
      const at = results.findIndex((r) => r.note_id === ids.get(note.id));
      out.push({
        set: set.author,
        kind: q.kind,
        query: q.text,
        offTopic: false,
        ...(at >= 0 ? { rank: at + 1 } : {}),
        ...(at === 0 ? { firstRelevance: results[0]!.relevance } : {}),
        maxRelevance: results[0]?.relevance ?? 0,
      });
    }
  }
  for (const q of set.off_topic) {
    const { results } = await ask(q.text);
    out.push({
      set: set.author,
      kind: q.kind,
      query: q.text,
      offTopic: true,
      maxRelevance: Math.max(0, ...results.map((r) => r.relevance)),
    });
  }
  return out;
}

export interface AuthorMetrics {
  queries: number;
  mrr10: number;
  /** Right note first with relevance ≥ 0.5 (goal ≥ 70 %). */
  firstAndRelevant: number;
  offTopic: number;
  /** Off-topic queries with a result ≥ 0.5 (goal ≤ 10 %). */
  falseAlarms: number;
}

export function authorMetrics(outcomes: readonly QueryOutcome[]): AuthorMetrics {
  const on = outcomes.filter((o) => !o.offTopic);
  const off = outcomes.filter((o) => o.offTopic);
  const share = (n: number, of: number) => (of ? n / of : Number.NaN);
  return {
    queries: on.length,
    mrr10: share(
      on.reduce((s, o) => s + (o.rank ? 1 / o.rank : 0), 0),
      on.length,
    ),
    firstAndRelevant: share(
      on.filter((o) => o.rank === 1 && (o.firstRelevance ?? 0) >= 0.5).length,
      on.length,
    ),
    offTopic: off.length,
    falseAlarms: share(off.filter((o) => o.maxRelevance >= 0.5).length, off.length),
  };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const pct = (x: number) => (Number.isNaN(x) ? '—' : `${(100 * x).toFixed(1)} %`);
  const line = (label: string, m: AuthorMetrics) =>
    `${label.padEnd(28)} ${String(m.queries).padStart(4)} queries  MRR@10 ${m.mrr10.toFixed(3)}  ` +
    `first at ≥ 0.5 ${pct(m.firstAndRelevant).padStart(7)}  ${String(m.offTopic).padStart(3)} off-topic, ` +
    `alarms ${pct(m.falseAlarms)}\n`;
  const all: QueryOutcome[] = [];
  for (const set of loadAuthorSets(option('--set'))) {
    const database = await openBenchDatabase('sqlite');
    try {
      const deps = benchDeps(database);
      const outcomes = await runAuthorSet(deps, await benchActor(database), set);
      await deps.close();
      all.push(...outcomes);
      process.stdout.write(line(set.author, authorMetrics(outcomes)));
      const kinds = [...new Set(outcomes.filter((o) => !o.offTopic).map((o) => o.kind))].sort();
      for (const kind of kinds) {
        const ofKind = outcomes.filter((o) => o.kind === kind && !o.offTopic);
        process.stdout.write(line(`  ${kind}`, authorMetrics(ofKind)));
      }
    } finally {
      await database.close();
    }
  }
  process.stdout.write(line('all sets', authorMetrics(all)));
  const out = option('--out');
  if (out) fs.writeFileSync(out, JSON.stringify({ outcomes: all }, null, 1));
}
