/**
 * Cross-family false alarms (npm run bench:search-quality -- --cross-family): QMSum train has three families of
 * meetings (AMI product design, ICSI research, parliamentary committees) that share no subject. For each family,
 * a fresh database holds one account with the meetings of the other two families; every query of the family is
 * run there through the search service (`searchNotes`, min_relevance 0) and counts as a false alarm when any
 * result reaches 0.5: no note of that account discusses the query's subject. Separate databases, so that no
 * statistic of the index (FTS5's bm25 is index-wide) has seen the query's own meetings.
 *
 * Meetings are split in two halves (alternating in name order): the tuned half and the held-out half are reported
 * apart, so a parameter chosen on one can be checked on the other.
 */

import { gatherEvidence } from '../../src/features/search/gather-evidence.ts';
import type { NoteEvidence } from '../../src/features/search/rank.ts';
import { searchNotes } from '../../src/features/search/search.service.ts';
import { benchActor, benchDeps, openBenchDatabase } from '../search/setup.ts';
import { useVectorCache } from '../search/vector-cache.ts';
import { ingest, type Meeting } from './qmsum.ts';

export type Family = 'AMI' | 'ICSI' | 'committee';
export const FAMILIES: Family[] = ['AMI', 'ICSI', 'committee'];

export function familyOf(meeting: string): Family {
  if (/^(ES|IS|TS)\d/.test(meeting)) return 'AMI';
  if (/^B[a-z]{2}\d/.test(meeting)) return 'ICSI';
  return 'committee';
}

/** The half a meeting belongs to: every other meeting, in name order, is held out from tuning. */
export function isHeldOut(meetings: readonly Meeting[], name: string): boolean {
  const sorted = meetings.map((m) => m.name).sort();
  return sorted.indexOf(name) % 2 === 1;
}

export interface CrossFamilyQuery {
  query: string;
  meeting: string;
  family: Family;
  heldOut: boolean;
  /** Relevance of the first result the service returned (0 when none). */
  top: number;
  spaceSize: number;
  /** The query's terms rare in that space (the rare-term floor's terms). */
  rareTerms?: string[];
  evidence: NoteEvidence[];
  /** The meeting each evidence note holds (for reading the alarms). */
  meetingOf?: Record<string, string>;
}

/** Runs every family's queries against a space holding only the other families. */
export async function runCrossFamily(
  meetings: readonly Meeting[],
  log: (line: string) => void,
): Promise<CrossFamilyQuery[]> {
  const out: CrossFamilyQuery[] = [];
  for (const family of FAMILIES) {
    const database = await openBenchDatabase('sqlite');
    try {
      const deps = benchDeps(database);
      const cache = await useVectorCache(deps);
      const actor = await benchActor(database);
      const others = meetings.filter((m) => familyOf(m.name) !== family);
      log(`[cross-family] ${family}: ingesting the ${others.length} meetings of the other families…`);
      const corpus = await ingest(deps, actor, [...others]);
      if (cache)
        log(`[cross-family] passage vectors: ${cache.hits} from the cache, ${cache.misses} embedded`);
      const space = { accountId: actor.accountId, mode: actor.mode };
      for (const meeting of meetings.filter((m) => familyOf(m.name) === family)) {
        for (const q of meeting.queries) {
          const input = { query: q.query, limit: 10, min_relevance: 0 };
          const { results } = await searchNotes(deps, actor, input);
          const gathered = await gatherEvidence(deps, space, input);
          out.push({
            query: q.query,
            meeting: meeting.name,
            family,
            heldOut: isHeldOut(meetings, meeting.name),
            top: results[0]?.relevance ?? 0,
            spaceSize: gathered.spaceSize,
            rareTerms: gathered.rareTerms,
            evidence: gathered.evidence,
            meetingOf: Object.fromEntries(
              gathered.evidence.map((e) => [e.noteId, corpus.meetingOf.get(e.noteId)?.name ?? '?']),
            ),
          });
        }
      }
    } finally {
      await database.close();
    }
  }
  return out;
}

/** Share of queries whose first result reaches 0.5, per family and over all. */
export function alarmRates(queries: readonly { family: Family; top: number }[]) {
  const rate = (qs: readonly { top: number }[]) => ({
    queries: qs.length,
    alarms: qs.filter((q) => q.top >= 0.5).length,
    rate: qs.length ? qs.filter((q) => q.top >= 0.5).length / qs.length : 0,
  });
  return {
    all: rate(queries),
    ...Object.fromEntries(FAMILIES.map((f) => [f, rate(queries.filter((q) => q.family === f))])),
  } as Record<'all' | Family, ReturnType<typeof rate>>;
}
