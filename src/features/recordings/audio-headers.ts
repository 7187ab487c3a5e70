import type { AudioResponse } from './recordings.service.ts';

/**
 * The headers of a recording's audio, whole or a range (the API's GET /v1/recordings/:id/audio and the
 * dashboard's player): stored audio never changes, so it is revalidated by ETag rather than cached blind.
 */
export function audioResponseHeaders(
  audio: Extract<AudioResponse, { kind: 'audio' }>,
): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': audio.contentType,
    'Content-Length': String(audio.length),
    'Accept-Ranges': 'bytes',
    ETag: audio.etag,
    'Cache-Control': 'private, no-cache',
    // The stored type came from the uploader: a browser must not sniff the bytes into HTML.
    'X-Content-Type-Options': 'nosniff',
  };
  if (audio.range) headers['Content-Range'] = `bytes ${audio.range.start}-${audio.range.end}/${audio.size}`;
  return headers;
}
