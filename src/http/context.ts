import type { Logger } from 'pino';

/**
 * What every request carries from a middleware to its handler. A feature's own middleware declares what it
 * adds in its own file (Hono's `ContextVariableMap`), so this layer names no feature's types.
 */
export interface AppEnv {
  Variables: {
    requestId: string;
    log: Logger;
    /**
     * Set by jsonBody for a large body sent with an Idempotency-Key: its fingerprint, taken in the thread that
     * parsed it (the Idempotency-Key middleware uses it instead of serialising and hashing the body here).
     */
    bodyFingerprint?: string;
  };
}
