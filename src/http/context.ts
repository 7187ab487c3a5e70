import type { Logger } from 'pino';
import type { Actor } from '../features/api-keys/scopes.ts';
import type { SaveIdempotentResponse } from '../features/idempotency/idempotency.repo.ts';
import type { MultipartUpload } from '../features/recordings/multipart-upload.ts';
import type { PreparedFrom } from '../features/transcripts/store-transcript.ts';

export interface AppEnv {
  Variables: {
    requestId: string;
    actor: Actor;
    log: Logger;
    /** Set by the Idempotency-Key middleware: the saver for a given success status (idempotentResponse). */
    idempotency?: (status: number) => SaveIdempotentResponse;
    /** Set by POST /v1/recordings for a multipart body: the streamed upload (fields and temp file). */
    upload?: MultipartUpload;
    /**
     * Set by jsonBody({ transcript: true }) for a large body: its `transcript`, already prepared in the thread
     * that parsed the body (the services use it when the validated input holds that same text).
     */
    preparedTranscript?: PreparedFrom;
    /**
     * Set by jsonBody for a large body sent with an Idempotency-Key: its fingerprint, taken in the thread that
     * parsed it (the Idempotency-Key middleware uses it instead of serialising and hashing the body here).
     */
    bodyFingerprint?: string;
  };
}
