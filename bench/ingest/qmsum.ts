import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The QMSum training split (162 meetings) shipped beside the project. */
export const QMSUM_DIR =
  process.env.QMSUM_DIR ??
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/data/qmsum/train');

export interface QmsumMeeting {
  name: string;
  turns: { speaker: string; content: string }[];
  generalQueries: { query: string; answer: string }[];
}

/** Words per minute used to give QMSum turns (which carry no timings) plausible times. */
const WORDS_PER_MINUTE = 150;

export function meetingNames(): string[] {
  return fs
    .readdirSync(QMSUM_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

export function loadMeeting(name: string): QmsumMeeting {
  const raw = JSON.parse(fs.readFileSync(path.join(QMSUM_DIR, `${name}.json`), 'utf8')) as {
    meeting_transcripts: { speaker: string; content: string }[];
    general_query_list: { query: string; answer: string }[];
  };
  return { name, turns: raw.meeting_transcripts, generalQueries: raw.general_query_list };
}

/** Turns [from, to) as timed segments, as POST /v1/notes takes them. */
export function toSegments(turns: readonly { speaker: string; content: string }[]) {
  let clock = 0;
  return turns
    .filter((t) => t.content.trim() !== '')
    .map((t) => {
      const words = t.content.split(/\s+/).filter(Boolean).length;
      const duration = Math.max(1000, Math.round((words / WORDS_PER_MINUTE) * 60_000));
      const segment = {
        speaker: t.speaker.trim() || 'Speaker',
        start_ms: clock,
        end_ms: clock + duration,
        text: t.content,
      };
      clock += duration;
      return segment;
    });
}

/** The corpus a meeting comes from: AMI product design, ICSI research group, or parliamentary committee. */
export function corpusOf(name: string): 'ami' | 'icsi' | 'committee' {
  if (/^(ES|IS|TS)\d/.test(name)) return 'ami';
  if (/^(covid|education)_/.test(name)) return 'committee';
  return 'icsi';
}
