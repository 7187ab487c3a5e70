import type { Mode } from '../../src/db/schema.ts';
import { type Actor, SCOPES } from '../../src/features/api-keys/scopes.ts';

/** An actor with every scope on one data space of the account: what tests that call services directly act as. */
export function actorOf(accountId: string, mode: Mode = 'live'): Actor {
  return { accountId, mode, scopes: new Set(SCOPES), keyId: 'test' };
}
