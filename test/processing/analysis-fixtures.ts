import type { AnalysisInput } from '../../src/features/processing/analyze-builtin.ts';

/** Monday 23 November 2026, 10:00 UTC: the recording date the analyzer tests resolve due dates from. */
export const MONDAY = '2026-11-23T10:00:00.000Z';

/** Named speakers behind generic labels. */
export const PEOPLE = [
  { label: 'Speaker 1', name: 'Alice Chen' },
  { label: 'Speaker 2', name: 'Bob Smith' },
  { label: 'Speaker 3', name: 'Maria Lopez' },
];

/** Turns `[label, text]` pairs into segments ten seconds apart. */
export function segments(turns: [string, string][]): AnalysisInput['segments'] {
  return turns.map(([speaker, text], i) => ({
    speaker,
    start_ms: i * 10_000,
    end_ms: i * 10_000 + 9_000,
    text,
  }));
}
