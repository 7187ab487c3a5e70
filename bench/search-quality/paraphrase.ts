/**
 * The paraphrase set (paraphrase-set.json): short meeting notes, queries that say what a note is about in other
 * words, and queries about subjects no note discusses. Ingested by the service code into one account; the
 * evidence of each query is gathered once and ranked by rankNotes, so parameters can be compared without
 * searching again. Part of the set is held out from tuning (`holdout_from_note`, `holdout_off_topic`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Deps } from '../../src/deps.ts';
import type { Actor } from '../../src/features/api-keys/scopes.ts';
import { createNote } from '../../src/features/notes/notes.service.ts';
import { gatherEvidence } from '../../src/features/search/gather-evidence.ts';
import { indexNote } from '../../src/features/search/index-note.ts';
import {
  DEFAULT_RANK_PARAMS,
  type NoteEvidence,
  type RankParams,
  rankNotes,
} from '../../src/features/search/rank.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

interface ParaphraseSet {
  holdout_from_note: number;
  holdout_off_topic: number;
  notes: { id: string; transcript: string; queries: string[] }[];
  off_topic: string[];
}

export function loadParaphraseSet(): ParaphraseSet {
  return JSON.parse(fs.readFileSync(path.join(here, 'paraphrase-set.json'), 'utf8')) as ParaphraseSet;
}

export interface ParaphraseEvidence {
  query: string;
  /** The note the query is about; undefined for an off-topic query. */
  relevantNote?: string;
  holdout: boolean;
  spaceSize: number;
  evidence: NoteEvidence[];
}

/** Creates, processes and indexes the set's notes in the actor's space; gathers every query's evidence. */
export async function collectParaphraseEvidence(deps: Deps, actor: Actor): Promise<ParaphraseEvidence[]> {
  const set = loadParaphraseSet();
  const space = { accountId: actor.accountId, mode: actor.mode };
  const noteIds = new Map<string, string>();
  for (const [i, note] of set.notes.entries()) {
    const created = await createNote(deps, actor, {
      transcript: note.transcript,
      created_at: new Date(Date.UTC(2026, 1, 1) + i * 3_600_000).toISOString(),
    });
    noteIds.set(note.id, created.id);
  }
  await runDueJobs(deps);
  for (const id of noteIds.values()) await indexNote(deps, space, id);
  const out: ParaphraseEvidence[] = [];
  const gather = async (query: string) => gatherEvidence(deps, space, { query, limit: 10, min_relevance: 0 });
  for (const [i, note] of set.notes.entries()) {
    for (const query of note.queries) {
      const g = await gather(query);
      out.push({
        query,
        relevantNote: noteIds.get(note.id)!,
        holdout: i + 1 >= set.holdout_from_note,
        spaceSize: g.spaceSize,
        evidence: g.evidence,
      });
    }
  }
  for (const [i, query] of set.off_topic.entries()) {
    const g = await gather(query);
    out.push({
      query,
      holdout: i >= set.off_topic.length - set.holdout_off_topic,
      spaceSize: g.spaceSize,
      evidence: g.evidence,
    });
  }
  return out;
}

export interface ParaphraseMetrics {
  queries: number;
  offTopic: number;
  mrr10: number;
  /** Share of paraphrase queries whose note is first with relevance ≥ 0.5 (goal ≥ 70 %). */
  firstAndRelevant: number;
  /** Share of off-topic queries returning anything at relevance ≥ 0.5 (goal ≤ 10 %). */
  falseAlarms: number;
}

export function paraphraseMetrics(
  items: readonly ParaphraseEvidence[],
  params: RankParams = DEFAULT_RANK_PARAMS,
): ParaphraseMetrics {
  let rr = 0;
  let first = 0;
  let queries = 0;
  let offTopic = 0;
  let alarms = 0;
  for (const item of items) {
    const ranked = rankNotes(item.evidence, item.spaceSize, params);
    if (item.relevantNote) {
      queries++;
      const at = ranked.slice(0, 10).findIndex((r) => r.noteId === item.relevantNote);
      if (at >= 0) rr += 1 / (at + 1);
      if (ranked[0]?.noteId === item.relevantNote && ranked[0].relevance >= 0.5) first++;
    } else {
      offTopic++;
      if (ranked.some((r) => r.relevance >= 0.5)) alarms++;
    }
  }
  return {
    queries,
    offTopic,
    mrr10: rr / Math.max(1, queries),
    firstAndRelevant: first / Math.max(1, queries),
    falseAlarms: alarms / Math.max(1, offTopic),
  };
}
