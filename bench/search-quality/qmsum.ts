import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Deps } from '../../src/deps.ts';
import type { Actor } from '../../src/features/api-keys/scopes.ts';
import { createNote } from '../../src/features/notes/notes.service.ts';
import { gatherEvidence } from '../../src/features/search/gather-evidence.ts';
import { indexNote } from '../../src/features/search/index-note.ts';
import type { NoteEvidence } from '../../src/features/search/rank.ts';
import { runDueJobs } from '../../src/jobs/worker.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const QMSUM_DIR = process.env.QMSUM_DIR ?? path.resolve(here, '../../../shared/data/qmsum/train');

export interface Meeting {
  name: string;
  turns: { speaker: string; content: string }[];
  queries: { query: string; spans: [number, number][] }[];
}

/** Every meeting of the split with its specific queries (general queries have no spans). */
export function loadMeetings(dir = QMSUM_DIR): Meeting[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const raw = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as {
        meeting_transcripts: { speaker: string; content: string }[];
        specific_query_list: { query: string; relevant_text_span: [string, string][] }[];
      };
      return {
        name: f.replace(/\.json$/, ''),
        turns: raw.meeting_transcripts,
        queries: raw.specific_query_list.map((q) => ({
          query: q.query,
          spans: q.relevant_text_span.map(([a, b]) => [Number(a), Number(b)] as [number, number]),
        })),
      };
    });
}

/** QMSum has no timings: turns are laid out at 150 words a minute, so `matched_at_ms` maps back to a turn. */
export function segmentsOf(meeting: Meeting) {
  let t = 0;
  return meeting.turns.map((turn) => {
    const words = Math.max(1, turn.content.split(/\s+/).filter(Boolean).length);
    const segment = {
      speaker: turn.speaker || 'Speaker',
      start_ms: t,
      end_ms: t + words * 400,
      text: turn.content || '…',
    };
    t += words * 400 + 200;
    return segment;
  });
}

export interface IngestedCorpus {
  /** note id → meeting */
  meetingOf: Map<string, Meeting>;
  noteOf: Map<string, string>;
  /** note id → start_ms of each turn */
  turnStarts: Map<string, number[]>;
  indexSeconds: number;
  chunks: number;
}

/** Creates one note per meeting through the notes service, processes and indexes them. */
export async function ingest(deps: Deps, actor: Actor, meetings: Meeting[]): Promise<IngestedCorpus> {
  const meetingOf = new Map<string, Meeting>();
  const noteOf = new Map<string, string>();
  const turnStarts = new Map<string, number[]>();
  // Whole meetings, whatever MAX_TRANSCRIPT_BYTES says.
  const bigTranscripts: Deps = { ...deps, config: { ...deps.config, maxTranscriptBytes: 50_000_000 } };
  for (const [i, meeting] of meetings.entries()) {
    const segments = segmentsOf(meeting).filter((s) => s.text.trim());
    const note = await createNote(bigTranscripts, actor, {
      segments,
      created_at: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(),
    });
    meetingOf.set(note.id, meeting);
    noteOf.set(meeting.name, note.id);
    turnStarts.set(
      note.id,
      segmentsOf(meeting).map((s) => s.start_ms),
    );
  }
  await runDueJobs(deps);
  const started = performance.now();
  for (const id of meetingOf.keys())
    await indexNote(deps, { accountId: actor.accountId, mode: actor.mode }, id);
  const indexSeconds = (performance.now() - started) / 1000;
  const row = await deps.db
    .selectFrom('search_chunks' as never)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return { meetingOf, noteOf, turnStarts, indexSeconds, chunks: Number((row as { n: number }).n) };
}

export interface QueryEvidence {
  query: string;
  meeting: string;
  relevantNote: string;
  spans: [number, number][];
  spaceSize: number;
  evidence: NoteEvidence[];
  /** Snippet start (ms) of the relevant note's best excerpt, when it has one. */
  relevantSnippetMs?: number;
  relevantSnippet?: string;
  ms: number;
}

/** Runs every query once through the service's evidence gathering (the expensive part). */
export async function collectEvidence(
  deps: Deps,
  actor: Actor,
  corpus: IngestedCorpus,
): Promise<QueryEvidence[]> {
  const out: QueryEvidence[] = [];
  for (const [noteId, meeting] of corpus.meetingOf) {
    for (const q of meeting.queries) {
      const started = performance.now();
      const g = await gatherEvidence(
        deps,
        { accountId: actor.accountId, mode: actor.mode },
        { query: q.query, limit: 50, min_relevance: 0 },
      );
      const ms = performance.now() - started;
      const snippet = g.notes.has(noteId) ? g.snippetOf(noteId) : undefined;
      out.push({
        query: q.query,
        meeting: meeting.name,
        relevantNote: noteId,
        spans: q.spans,
        spaceSize: g.spaceSize,
        evidence: g.evidence,
        ...(snippet?.matchedAtMs !== undefined ? { relevantSnippetMs: snippet.matchedAtMs } : {}),
        ...(snippet ? { relevantSnippet: snippet.text } : {}),
        ms,
      });
    }
  }
  return out;
}

/** The turn a position in the synthetic timeline falls in. */
export function turnAt(starts: readonly number[], ms: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= ms) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
