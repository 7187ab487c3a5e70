import type { TranscriptSegment } from '../../transcripts/parse-transcript.ts';

/** The audio a transcriber is given: a local file (storage hands one out) and what kind of audio it is. */
export interface AudioInput {
  path: string;
  contentType: string;
  /** A file name for providers that look at the extension, e.g. `audio.m4a`. */
  filename: string;
  /** The language spoken (BCP 47), when the recording's owner said: a hint, not a guarantee. */
  language?: string;
}

/** Speech to text: timed segments, with speaker labels when the provider tells speakers apart. */
export interface Transcriber {
  readonly name: string;
  transcribe(audio: AudioInput): Promise<TranscriptSegment[]>;
}

/** Why a note made from audio fails when no transcriber is configured. */
export const NO_TRANSCRIBER_REASON =
  'No transcription provider is configured, so this audio could not be turned into a transcript. The ' +
  'recording is stored; set TRANSCRIBER=openai with TRANSCRIBE_BASE_URL, TRANSCRIBE_API_KEY and ' +
  'TRANSCRIBE_MODEL (any OpenAI-compatible /audio/transcriptions endpoint), or post a transcript instead.';
