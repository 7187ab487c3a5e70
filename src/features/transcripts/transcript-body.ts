import type { Deps } from '../../deps.ts';
import type { LargeJsonBodyParse } from '../../http/middleware.ts';
import type { TranscriptUse } from './prepared-transcript.ts';
import type { PreparedFrom } from './store-transcript.ts';

declare module 'hono' {
  interface ContextVariableMap {
    /**
     * Set by a route reading its body with transcriptBody for a large body: its `transcript`, already prepared
     * in the thread that parsed the body (the services use it when the validated input holds that same text).
     */
    preparedTranscript?: PreparedFrom;
  }
}

/**
 * jsonBody's parse of a large body for a route that takes a transcript: its `transcript` is prepared, for
 * `use`, in the same processing-thread trip that parses the body, and handed to the route as
 * `preparedTranscript`.
 */
export function transcriptBody(deps: Deps, use: TranscriptUse): LargeJsonBodyParse {
  const transcript = { limit: deps.config.maxTranscriptBytes, use };
  return async (c, bytes, fingerprintOf) => {
    const body = await deps.processing.parseJson(bytes, { transcript, fingerprintOf });
    if (body.prepared && typeof body.value.transcript === 'string') {
      c.set('preparedTranscript', { source: body.value.transcript, prepared: body.prepared });
    }
    return body;
  };
}

/**
 * The body limit of a route that takes a transcript: room for the transcript twice (as text, or as segments with
 * their JSON punctuation) besides the other fields, and never below the general body limit.
 */
export function transcriptBodyLimit(deps: Deps): number {
  return Math.max(deps.config.maxBodyBytes, deps.config.maxTranscriptBytes * 2 + 65_536);
}
