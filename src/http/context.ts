import type { Logger } from 'pino';
import type { Actor } from '../features/api-keys/scopes.ts';

export type { Deps } from '../deps.ts';

export interface AppEnv {
  Variables: {
    requestId: string;
    actor: Actor;
    log: Logger;
  };
}
