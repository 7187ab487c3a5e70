import fs from 'node:fs';
import { z } from 'zod';
import type { OpenAiEndpoint } from '../../../config.ts';
import { primaryLanguage } from '../../../lib/schemas/language.ts';
import type { TranscriptSegment } from '../../transcripts/parse-transcript.ts';
import { fetchProvider, ProviderError } from './provider-error.ts';
import type { AudioInput, Transcriber } from './transcriber.ts';

const WHAT = 'The transcription provider';

/** The parts of a `verbose_json` (or `diarized_json`) answer we use; other fields are ignored. */
const TranscriptionResponse = z.object({
  text: z.string().optional(),
  duration: z.number().nonnegative().optional(),
  segments: z
    .array(
      z.object({
        start: z.number().nonnegative(),
        end: z.number().nonnegative(),
        text: z.string(),
        // Diarizing providers label segments: "A", "SPEAKER_00", "spk_1", 0 …
        speaker: z.union([z.string(), z.number()]).optional().nullable(),
      }),
    )
    .optional(),
});

/**
 * Any OpenAI-compatible `POST {base}/audio/transcriptions` (OpenAI, Groq, faster-whisper and whisper.cpp
 * servers): multipart with the file streamed from disk, `response_format=verbose_json` for timed segments.
 * Speaker labels of diarizing providers become "Speaker 1", "Speaker 2", … in order of first appearance.
 */
export function createOpenAiTranscriber(endpoint: OpenAiEndpoint): Transcriber {
  return {
    name: 'openai',
    async transcribe(audio: AudioInput) {
      const form = new FormData();
      // A file-backed Blob: the upload is streamed from disk, never read into memory whole.
      form.set('file', await fs.openAsBlob(audio.path, { type: audio.contentType }), audio.filename);
      form.set('model', endpoint.model);
      form.set('response_format', 'verbose_json');
      form.append('timestamp_granularities[]', 'segment');
      // Whisper-style APIs take ISO 639-1 ("de"), not a full BCP 47 tag ("de-CH").
      if (audio.language) form.set('language', primaryLanguage(audio.language));
      const { text } = await fetchProvider(
        WHAT,
        `${endpoint.baseUrl}/audio/transcriptions`,
        {
          method: 'POST',
          headers: endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {},
          body: form,
        },
        endpoint.timeoutMs,
      );
      return toSegments(parseResponse(text));
    },
  };
}

function parseResponse(text: string): z.infer<typeof TranscriptionResponse> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ProviderError(`${WHAT} did not answer with JSON (is it OpenAI-compatible?).`, false);
  }
  const parsed = TranscriptionResponse.safeParse(json);
  if (!parsed.success) {
    throw new ProviderError(
      `${WHAT} answered with an unexpected shape: ${z.prettifyError(parsed.error).split('\n')[0]}`,
      false,
    );
  }
  return parsed.data;
}

/** Provider segments → ours: milliseconds, trimmed text, empty ones dropped, speakers named consistently. */
export function toSegments(response: z.infer<typeof TranscriptionResponse>): TranscriptSegment[] {
  const labels = new Map<string, string>();
  const labelOf = (speaker: string | number | null | undefined) => {
    if (speaker === undefined || speaker === null || String(speaker).trim() === '') return 'Speaker 1';
    const key = String(speaker).trim();
    if (!labels.has(key)) labels.set(key, `Speaker ${labels.size + 1}`);
    return labels.get(key)!;
  };
  const segments = (response.segments ?? [])
    .map((s) => ({
      speaker: labelOf(s.speaker),
      start_ms: Math.round(s.start * 1000),
      end_ms: Math.max(Math.round(s.start * 1000), Math.round(s.end * 1000)),
      text: s.text.replace(/\s+/g, ' ').trim(),
    }))
    .filter((s) => s.text !== '');
  if (segments.length) return segments;
  // Providers without segment timings still give the text: one segment over the whole recording.
  const whole = (response.text ?? '').replace(/\s+/g, ' ').trim();
  if (!whole) return [];
  return [
    { speaker: 'Speaker 1', start_ms: 0, end_ms: Math.round((response.duration ?? 0) * 1000), text: whole },
  ];
}
