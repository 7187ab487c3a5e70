import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AskNote } from '../../src/features/ask/extractive.ts';
import { QMSUM_DIR } from '../search-quality/qmsum.ts';

export interface AskQuery {
  query: string;
  answer: string;
  spans: [number, number][];
}

export interface AskMeeting {
  name: string;
  note: AskNote;
  queries: AskQuery[];
}

/**
 * The split a meeting belongs to, fixed by its position in name order: every fourth meeting is held out
 * (never looked at while tuning), the others are the tuning set.
 */
export type Split = 'tune' | 'heldout';
export const splitOf = (index: number): Split => (index % 4 === 3 ? 'heldout' : 'tune');

/** QMSUM_DIR, or shared/ beside the repository, or beside the folder of worktrees that holds it. */
export function qmsumDir(): string {
  if (process.env.QMSUM_DIR || fs.existsSync(QMSUM_DIR)) return QMSUM_DIR;
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.resolve(here, '../../../../shared/data/qmsum/train');
}

/** QMSum meetings as notes (turns laid out at 150 words a minute, as bench/search-quality does). */
export function loadAskMeetings(dir = qmsumDir()): (AskMeeting & { split: Split })[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f, i) => {
      const raw = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as {
        meeting_transcripts: { speaker: string; content: string }[];
        specific_query_list: { query: string; answer: string; relevant_text_span: [string, string][] }[];
      };
      let t = 0;
      const segments = raw.meeting_transcripts.map((turn) => {
        const words = Math.max(1, turn.content.split(/\s+/).filter(Boolean).length);
        const s = { speaker: turn.speaker, text: turn.content, start_ms: t, end_ms: t + words * 400 };
        t += words * 400 + 200;
        return s;
      });
      const name = f.replace(/\.json$/, '');
      return {
        name,
        split: splitOf(i),
        note: {
          id: `note_${name}`,
          title: name,
          created_at: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(),
          segments,
        },
        queries: raw.specific_query_list.map((q) => ({
          query: q.query,
          answer: q.answer,
          spans: q.relevant_text_span.map(([a, b]) => [Number(a), Number(b)] as [number, number]),
        })),
      };
    });
}

/** An answer as ROUGE scores it: the text without its citation markers. */
export const withoutMarkers = (answer: string) => answer.replace(/\s*\[\d+\]/g, '');

/** The turn each citation quotes (by its start), and whether it lies inside one of the question's gold spans. */
export function citedTurns(
  note: AskNote,
  query: AskQuery,
  citations: readonly { start_ms?: number | null | undefined }[],
): { turn: number; inSpan: boolean }[] {
  const starts = note.segments.map((s) => s.start_ms);
  return citations.map((c) => {
    const turn = starts.indexOf(c.start_ms ?? -1);
    return { turn, inSpan: query.spans.some(([lo, hi]) => turn >= lo && turn <= hi) };
  });
}
