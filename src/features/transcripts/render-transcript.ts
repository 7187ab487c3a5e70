/** The transcript text of the API: one speaker turn per line, `<label>: <text>`. */
export function renderTranscript(segments: readonly { speaker: string; text: string }[]): string {
  // From the start of a run of spaces only: trying every position of a long run is quadratic.
  return segments.map((s) => `${s.speaker}: ${s.text.replace(/(?<!\s)\s*\n\s*/g, ' ').trim()}`).join('\n');
}
