import type { Logger } from 'pino';
import type { Actor } from '../features/api-keys/scopes.ts';
import type { SaveIdempotentResponse } from '../features/idempotency/idempotency.repo.ts';

export interface AppEnv {
  Variables: {
    requestId: string;
    actor: Actor;
    log: Logger;
    /** Set by the Idempotency-Key middleware: the saver for a given success status (idempotentResponse). */
    idempotency?: (status: number) => SaveIdempotentResponse;
  };
}
