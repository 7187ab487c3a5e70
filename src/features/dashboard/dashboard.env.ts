import type { Logger } from 'pino';
import type { SessionsTable } from '../../db/schema.ts';
import type { Actor } from '../api-keys/scopes.ts';

/** What every dashboard handler can read from its context. */
export interface DashEnv {
  Variables: {
    log: Logger;
    /** Set once the session middleware accepted the cookie. */
    session: SessionsTable;
    /** The signed-in person's email. */
    email: string;
    /** The session's cookie token (the row holds only its hash). */
    token: string;
    /** Who the services see: the session's account and mode, with every scope (the person owns the account). */
    actor: Actor;
    /** The CSRF token that state-changing requests of this session must carry. */
    csrf: string;
    /** A one-shot message carried over a redirect (flash cookie). */
    flash?: Flash;
  };
}

export interface Flash {
  kind: 'ok' | 'error';
  text: string;
}
