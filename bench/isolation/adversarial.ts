/**
 * Transcripts built to be hard for the analyzer, each at most MAX_TRANSCRIPT_BYTES (2 MiB by default) in UTF-8:
 * long runs of one letter (a pasted blob, a stuck key, a transcription glitch), of other character classes,
 * of the words the action-item patterns start from, and thousands of tiny turns.
 */
export interface AdversarialTranscript {
  name: string;
  transcript: string;
}

/** `unit` repeated to at most `bytes` bytes of UTF-8. */
function fill(unit: string, bytes: number): string {
  const size = Buffer.byteLength(unit, 'utf8');
  return unit.repeat(Math.floor(bytes / size));
}

export function adversarialTranscripts(maxBytes = 2_097_152): AdversarialTranscript[] {
  const max = maxBytes;
  return [
    { name: 'one 20 KB lower-case word', transcript: fill('x', 20_000) },
    { name: 'one 2 MB lower-case word', transcript: fill('x', max) },
    { name: 'one 2 MB upper-case word', transcript: fill('X', max) },
    { name: 'one 2 MB accented word', transcript: fill('é', max) },
    { name: 'one 2 MB mixed-case word', transcript: fill('aB', max) },
    { name: '2 MB of question marks', transcript: fill('?', max) },
    { name: '2 MB of spaces and one word', transcript: `${fill(' ', max - 10)}word` },
    { name: '2 MB of "i\'ll "', transcript: fill("i'll ", max) },
    { name: '2 MB of "we need to "', transcript: fill('we need to ', max) },
    { name: '2 MB of "Maria, can you "', transcript: fill('Maria, can you ', max) },
    { name: '2 MB of "the x for the "', transcript: fill('the x for the ', max) },
    { name: '2 MB of "Dr. "', transcript: fill('Dr. ', max) },
    { name: '2 MB of "J. "', transcript: fill('J. ', max) },
    {
      name: '2 MB of "Send report 1. "',
      transcript: Array.from({ length: 120_000 }, (_, i) => `I'll send report ${i}. `)
        .join('')
        .slice(0, max),
    },
    {
      name: '2 MB of "; " after a promise',
      transcript: `A: I'll send the report${fill('; ', max - 40)}x`,
    },
    { name: '400,000 one-word turns', transcript: fill('A: x\n', max) },
    { name: '2 MB of short labelled turns', transcript: fill('Maria Lopez: yes.\nBob: ok.\n', max) },
    { name: '2 MB of emoji', transcript: fill('😀', max) },
  ];
}
